// The tracing seam the pipeline, the runtime and the transfers see (implemented with the OTel SDK in
// src/ops/tracing.ts): the app's tracing, and spans that end with their work.
import {
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { ToolgateError } from '../lib/errors.js';

/**
 * One app's tracing. Absent (undefined) when tracing is off: callers test that before making any span.
 * The active context lives in the app's own async-local storage, not in the global OTel API, so several
 * apps in one process never see each other's spans.
 */
export interface Tracing {
  readonly tracer: Tracer;
  /** The context in force here (the root context outside any traced work). */
  active(): Context;
  /** Runs fn with ctx in force: spans started inside it, however deep, become its children. */
  with<T>(ctx: Context, fn: () => T): T;
  /** The agent's context from W3C `traceparent`/`tracestate` headers (the root context without them). */
  extract(headers: Readonly<Record<string, string | string[] | undefined>>): Context;
  /** Flushes and stops exporting; never rejects. */
  shutdown(): Promise<void>;
}

/** The active context when it holds a span (traced work), else undefined: no lone root spans. */
export function tracedParent(tracing: Tracing | undefined): Context | undefined {
  if (!tracing) return undefined;
  const parent = tracing.active();
  return trace.getSpan(parent) ? parent : undefined;
}

/** Ends a span with an error status; a thrown value becomes an exception event. */
export function failSpan(span: Span, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  const code = (err as Partial<ToolgateError> | null)?.code;
  if (typeof code === 'string') span.setAttribute('toolgate.error.code', code);
  span.end();
}

/** Runs fn inside a new child span of the active context; the span ends when fn settles. */
export function inSpan<T>(
  tracing: Tracing,
  name: string,
  attributes: Attributes | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  const parent = tracing.active();
  const span = tracing.tracer.startSpan(name, { attributes }, parent);
  let running: Promise<T>;
  try {
    running = tracing.with(trace.setSpan(parent, span), fn);
  } catch (err) {
    failSpan(span, err);
    throw err;
  }
  return running.then(
    (value) => {
      span.end();
      return value;
    },
    (err: unknown) => {
      failSpan(span, err);
      throw err;
    },
  );
}
