// One app's OpenTelemetry tracing: its own TracerProvider, OTLP/HTTP (JSON) exporter and active-context
// storage, never registered globally, so several apps in one process each trace on their own.
import { AsyncLocalStorage } from 'node:async_hooks';
import { ROOT_CONTEXT, defaultTextMapGetter, type Context } from '@opentelemetry/api';
import { ExportResultCode, W3CTraceContextPropagator, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-node';
import type { TelemetryConfig } from '../config.js';
import type { ToolLogger } from '../lib/logger.js';
import type { Tracing } from './trace.js';

/** Closing the app waits this long at most for the last spans to leave (a dead collector must not hang it). */
const SHUTDOWN_WAIT_MS = 3_000;

/** Tracing for this config, or undefined when it is off (no provider, no exporter, nothing per call). */
export function createTracing(telemetry: TelemetryConfig, logger: ToolLogger): Tracing | undefined {
  if (!telemetry.endpoint) return undefined;
  const exporter = new LoggedExporter(new OTLPTraceExporter({ url: telemetry.endpoint }), logger);
  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': telemetry.serviceName })),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('toolgate');
  const storage = new AsyncLocalStorage<Context>();
  const propagator = new W3CTraceContextPropagator();
  // Export runs in the background: a failure is logged and dropped, it never reaches a call.
  const bounded = async (work: Promise<void>): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        work,
        new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_WAIT_MS))),
      ]);
    } catch (err) {
      logger.warn({ err }, 'trace export failed');
    } finally {
      clearTimeout(timer);
    }
  };
  let stopped: Promise<void> | undefined;
  return {
    tracer,
    active: () => storage.getStore() ?? ROOT_CONTEXT,
    with: (ctx, fn) => storage.run(ctx, fn),
    extract: (headers) => propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter),
    shutdown: () => (stopped ??= bounded(provider.shutdown())),
  };
}

/** Passes spans to the OTLP exporter and says once in the log when exporting starts or stops failing. */
class LoggedExporter implements SpanExporter {
  private failing = false;

  constructor(
    private readonly inner: SpanExporter,
    private readonly logger: ToolLogger,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    try {
      this.inner.export(spans, (result) => {
        this.note(result);
        done(result);
      });
    } catch (err) {
      const result = { code: ExportResultCode.FAILED, error: err as Error };
      this.note(result);
      done(result);
    }
  }

  private note(result: ExportResult): void {
    const failed = result.code !== ExportResultCode.SUCCESS;
    if (failed && !this.failing) {
      this.logger.warn({ err: result.error }, 'trace export failed; spans are dropped until it recovers');
    } else if (!failed && this.failing) {
      this.logger.info({}, 'trace export recovered');
    }
    this.failing = failed;
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
