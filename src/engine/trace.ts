// The spans of the pipeline: one per call, one per step, each step wrapped once when the chain is built
// (on the tracing seam of src/ops/trace.ts).
import { trace } from '@opentelemetry/api';
import { failSpan, inSpan, type Tracing } from '../ops/trace.js';
import type { AuditStatus } from '../store/audit.js';
import type { ToolgateError } from '../lib/errors.js';
import type { CallOutcome, CallState, Middleware, Next } from '../contract/call.js';

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
