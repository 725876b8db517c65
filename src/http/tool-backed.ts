// Resource routes that are a tool underneath (checkpoints, changes): the call goes through the same
// pipeline as POST .../tools/{name} — permissions, rate limits, approvals, audit — and the route shapes
// the result as a resource. A refused or parked call answers exactly as the tool route would. A read route
// asked with the admin key is an operator's view of the session (entry point `operator`), not its agent's
// call: no rate-limit budget, no approval, no stats, hidden from the session's audit timeline by default.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CallOutcome } from '../contract/call.js';
import { sessionForRequest } from './auth.js';
import { clientGoneHook, requestBytes, sendCallOutcome } from './call-response.js';

/** Runs the tool; on success returns its data, otherwise sends the error (or 202) and returns undefined. */
export async function callToolForRoute(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  sessionId: string,
  toolName: string,
  input: unknown,
  options: { read?: boolean } = {},
): Promise<unknown> {
  const session = await sessionForRequest(app, request, sessionId);
  const caller = request.principal!.kind;
  const outcome: CallOutcome = await app.services.pipeline.execute({
    toolName,
    input,
    session,
    caller,
    entryPoint: options.read && caller === 'admin' ? 'operator' : 'rest',
    bytesIn: requestBytes(request),
    signal: clientGoneHook(reply),
  });
  request.callInfo = { sessionId: session.id, tool: toolName, callId: outcome.callId };
  if (outcome.ok) return outcome.data;
  await sendCallOutcome(reply, request, outcome);
  return undefined;
}

/** Runs the tool and answers with its data under `status` (a refusal or a parked call as the tool route would). */
export async function sendToolResult(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  call: { sessionId: string; toolName: string; input: unknown; status: number; read?: boolean },
): Promise<FastifyReply> {
  const data = await callToolForRoute(app, request, reply, call.sessionId, call.toolName, call.input, {
    read: call.read,
  });
  return data === undefined ? reply : reply.code(call.status).send(data);
}

/** preValidation for optional bodies: no body at all validates as `{}` (Fastify would say "must be object"). */
export async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}
