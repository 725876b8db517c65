// Turns a pipeline outcome into the HTTP response: 200 with the success envelope, 202 with the pending
// one, or the error envelope with the error's status (bodies from lib/envelope.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pendingEnvelope, successEnvelopeJson } from '../lib/envelope.js';
import type { CallOutcome } from '../contract/call.js';
import { sendError } from './error-envelope.js';

export function sendCallOutcome(reply: FastifyReply, request: FastifyRequest, outcome: CallOutcome) {
  reply.headers(outcome.headers);
  if (!outcome.ok && outcome.error.code === 'APPROVAL_PENDING') {
    // Parked, not failed: 202 with where to fetch the result once an operator decides.
    const details = outcome.error.details ?? {};
    return reply.code(202).send(
      pendingEnvelope(outcome.callId, 'pending_approval', String(details.expiresAt), {
        message: outcome.error.message,
        resultUrl: details.resultUrl,
      }),
    );
  }
  if (!outcome.ok) return sendError(reply, request, outcome.error, outcome.callId);
  return reply.code(200).type('application/json; charset=utf-8').send(successEnvelopeJson(outcome));
}

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
