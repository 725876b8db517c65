// Turns a pipeline outcome into the HTTP response: 200 with the success envelope, or the error envelope
// with the error's status. The success body is assembled from the once-serialised data.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CallOutcome } from '../core/pipeline/types.js';
import { sendError } from './error-envelope.js';

export function sendCallOutcome(reply: FastifyReply, request: FastifyRequest, outcome: CallOutcome) {
  reply.headers(outcome.headers);
  if (!outcome.ok && outcome.error.code === 'APPROVAL_PENDING') {
    // Parked, not failed: 202 with where to fetch the result once an operator decides.
    const details = outcome.error.details ?? {};
    return reply.code(202).send({
      success: true,
      pending: true,
      status: 'pending_approval',
      callId: outcome.callId,
      message: outcome.error.message,
      expiresAt: details.expiresAt,
      resultUrl: details.resultUrl,
    });
  }
  if (!outcome.ok) return sendError(reply, request, outcome.error, outcome.callId);
  const body = `{"success":true,"callId":${JSON.stringify(outcome.callId)},"data":${outcome.dataJson},"metadata":${JSON.stringify(outcome.metadata)}}`;
  return reply.code(200).type('application/json; charset=utf-8').send(body);
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

export const requestBytes = (request: FastifyRequest): number => {
  const length = Number(request.headers['content-length']);
  return Number.isFinite(length) ? length : 0;
};
