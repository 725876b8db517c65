// Turns a pipeline outcome into the HTTP response: 200 with the success envelope, 202 with the pending
// one, or the error envelope with the error's status (bodies from lib/envelope.ts).
import { setMaxListeners } from 'node:events';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Cancellation, type CancelSignal } from '../lib/cancellation.js';
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

/** Each client connection's: aborted when its socket closes. */
const connectionGone = new WeakMap<Socket, Cancellation>();

/**
 * Fires when the client disconnects: the socket's close, watched once per connection rather than once per
 * request (a keep-alive client sends many calls on one), and no AbortSignal made for it. A call still
 * running then is one whose answer was not sent yet; the calls that ended stopped listening when they did.
 */
export function clientGoneHook(reply: FastifyReply): CancelSignal {
  return connectionCancellation(reply);
}

/** The same as an AbortSignal, for code that needs one (one per connection, made on first use). */
export function clientGone(reply: FastifyReply): AbortSignal {
  const cancel = connectionCancellation(reply);
  const fresh = !cancel.hasSignal;
  const signal = cancel.signal;
  // Each request on the connection may listen while it runs: many listeners is normal, not a leak.
  if (fresh) setMaxListeners(0, signal);
  return signal;
}

function connectionCancellation(reply: FastifyReply): Cancellation {
  const socket = reply.request.raw.socket as Socket | null;
  let gone = socket ? connectionGone.get(socket) : undefined;
  if (!gone) {
    const cancel = (gone = new Cancellation());
    const disconnected = () => cancel.abort(new Error('client disconnected'));
    if (socket?.destroyed) disconnected();
    else if (socket) {
      connectionGone.set(socket, cancel);
      socket.once('close', disconnected);
    } else reply.raw.once('close', () => reply.raw.writableFinished || disconnected());
  }
  return gone;
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
