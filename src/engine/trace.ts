// The tracing seam the pipeline and the runtime see (implemented with the OTel SDK in src/ops/tracing.ts),
// and the spans of the pipeline: one per call, one per step, each step wrapped once when the chain is built.
import {
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { AuditStatus } from '../store/audit.js';
import type { ToolgateError } from '../lib/errors.js';
import type { CallOutcome, CallState, Middleware, Next } from './types.js';

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

/** A step in a span named `step <name>`; steps nest as the middleware do (each wraps the ones after it). */
export const tracedStep =
  <C extends CallState>(tracing: Tracing, name: string, middleware: Middleware<C>): Middleware<C> =>
  (call, next: Next) =>
    inSpan(tracing, `step ${name}`, undefined, () => middleware(call, next));

/** Runs one call in its `tool <name>` span, a child of whatever context the entry point put in force. */
export async function tracedCall(
  tracing: Tracing,
  call: CallState,
  statusOf: (error: ToolgateError) => AuditStatus,
  run: () => Promise<CallOutcome>,
): Promise<CallOutcome> {
  const { request } = call;
  const parent = tracing.active();
  const span = tracing.tracer.startSpan(
    `tool ${request.toolName}`,
    {
      attributes: {
        'toolgate.call.id': call.callId,
        'toolgate.session.id': request.session.id,
        'toolgate.entry_point': request.entryPoint,
        'toolgate.bytes_in': request.bytesIn,
      },
    },
    parent,
  );
  let outcome: CallOutcome;
  try {
    outcome = await tracing.with(trace.setSpan(parent, span), run);
  } catch (err) {
    failSpan(span, err);
    throw err;
  }
  const entry = call.entry?.tool;
  span.setAttributes({
    'toolgate.tool': entry?.name ?? String(request.toolName).slice(0, 100),
    ...(entry ? { 'toolgate.category': entry.category } : {}),
  });
  if (outcome.ok) {
    span.setAttributes({
      'toolgate.status': 'success',
      'toolgate.bytes_out': Buffer.byteLength(outcome.dataJson),
      'http.response.status_code': 200,
    });
    span.end();
  } else {
    const { error } = outcome;
    span.setAttributes({
      'toolgate.status': statusOf(error),
      'toolgate.bytes_out': 0,
      'http.response.status_code': error.statusCode,
    });
    failSpan(span, error);
  }
  return outcome;
}
