// THE envelope: the only place a success, failure or pending body is written, whichever way it leaves
// (JSON response, SSE `end` event, a stored approval result, a batch result entry). It takes plain
// values, not pipeline types, so every layer can use it. A success is assembled as a string around
// the once-serialised data (docs/performance.md: no second JSON.stringify of a large result).
import type { ErrorBody, ToolgateError } from './errors.js';

/** What a success envelope is made of: a call outcome's id, its data as JSON, and its metadata. */
export interface SuccessParts {
  readonly callId: string;
  readonly dataJson: string;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** `status` is added where the HTTP status is not otherwise visible (the SSE `end` event). */
export const successEnvelopeJson = (success: SuccessParts, status?: number): string =>
  `{"success":true,${status === undefined ? '' : `"status":${status},`}"callId":${JSON.stringify(success.callId)},"data":${success.dataJson},"metadata":${JSON.stringify(success.metadata)}}`;

/** Where a failure is answered: each member is present only when given. */
export interface FailureContext {
  /** The HTTP status, where it is not otherwise visible (the SSE `end` event). */
  status?: number;
  /** The audit id of the call that failed; a request that was no call has none. */
  callId?: string;
  /** The request that is answered; absent in a body stored before any request asks for it. */
  requestId?: string;
}

export interface FailureEnvelope extends FailureContext {
  success: false;
  error: ErrorBody;
}

const errorBodyOf = (error: ToolgateError | ErrorBody): ErrorBody =>
  'toBody' in error ? error.toBody() : error;

/** The failure envelope (ErrorEnvelope in the OpenAPI document when it carries a requestId). */
export const failureEnvelope = (
  error: ToolgateError | ErrorBody,
  context: FailureContext = {},
): FailureEnvelope => ({
  success: false,
  ...(context.status === undefined ? {} : { status: context.status }),
  ...(context.callId === undefined ? {} : { callId: context.callId }),
  ...(context.requestId === undefined ? {} : { requestId: context.requestId }),
  error: errorBodyOf(error),
});

/** A stored envelope answered to a request: a failure gets that request's id, like any error response. */
export function storedEnvelope(body: unknown, requestId: string): unknown {
  const failure =
    typeof body === 'object' && body !== null && (body as { success?: unknown }).success === false;
  return failure ? { ...body, requestId } : body;
}

/** A call's outcome as the members of one batch result: its id, whether it succeeded, its data or error. */
export const outcomeMembers = (
  outcome: { ok: true; callId: string; data: unknown } | { ok: false; callId: string; error: ToolgateError },
) =>
  outcome.ok
    ? { callId: outcome.callId, success: true as const, data: outcome.data }
    : { callId: outcome.callId, success: false as const, error: outcome.error.toBody() };

export type PendingStatus = 'pending_approval' | 'running';

/** The 202 body of a call that waits for an operator (or, once approved, is still running). */
export const pendingEnvelope = (
  callId: string,
  status: PendingStatus,
  expiresAt: string,
  note: { message?: string; resultUrl?: unknown } = {},
) => ({
  success: true as const,
  pending: true as const,
  status,
  callId,
  expiresAt,
  ...('message' in note ? { message: note.message } : {}),
  ...('resultUrl' in note ? { resultUrl: note.resultUrl } : {}),
});

/** A call's outcome as the status and envelope it is answered with, as a value to store (an approved call's result). */
export function outcomeEnvelope(
  outcome: ({ ok: true } & SuccessParts) | { ok: false; callId: string; error: ToolgateError },
): { status: number; body: unknown } {
  return outcome.ok
    ? { status: 200, body: JSON.parse(successEnvelopeJson(outcome)) }
    : { status: outcome.error.statusCode, body: failureEnvelope(outcome.error, { callId: outcome.callId }) };
}
