// Turns a pipeline outcome into the HTTP response: 200 with the success envelope, or the error envelope
// with the error's status. The success body is assembled from the once-serialised data.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { successEnvelopeJson } from '../lib/envelope.js';
import type { CallOutcome } from '../engine/types.js';
import { sendError } from './error-envelope.js';

export function sendCallOutcome(reply: FastifyReply, request: FastifyRequest, outcome: CallOutcome) {
  reply.headers(outcome.headers);
  if (!outcome.ok && outcome.error.code === 'APPROVAL_PENDING') {
    // Parked, not failed: 202 with where to fetch the result once an operator decides.
    const details = outcome.error.details ?? {};
    return reply.code(202).send({
      ...pendingBody(outcome.callId, 'pending_approval', String(details.expiresAt)),
      message: outcome.error.message,
      resultUrl: details.resultUrl,
    });
  }
  if (!outcome.ok) return sendError(reply, request, outcome.error, outcome.callId);
  return reply.code(200).type('application/json; charset=utf-8').send(successEnvelopeJson(outcome));
}

/** The 202 body of a call that waits for an operator (or, once approved, is still running). */
export const pendingBody = (callId: string, status: 'pending_approval' | 'running', expiresAt: string) => ({
  success: true as const,
  pending: true as const,
  status,
  callId,
  expiresAt,
});

/** An AbortSignal that fires when the client disconnects before the response is sent. */
export function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('client disconnected'));
  });
  return controller.signal;
}

export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const key = request.headers['idempotency-key'];
  return Array.isArray(key) ? key.join(',') : key;
}

/** The caller's turn (X-Toolgate-Turn): identical calls within it are detected as duplicates. */
export function turnOf(request: FastifyRequest): string | undefined {
  const turn = request.headers['x-toolgate-turn'];
  return Array.isArray(turn) ? turn.join(',') : turn;
}

export const requestBytes = (request: FastifyRequest): number => {
  const length = Number(request.headers['content-length']);
  return Number.isFinite(length) ? length : 0;
};
