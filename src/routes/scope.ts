// Which session an observability query may cover: admins choose any (or all); a session token is
// pinned to its own session, and naming another one is a 404 like everywhere else.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sessionForRequest } from '../http/auth.js';

export async function scopedSessionId(
  app: FastifyInstance,
  request: FastifyRequest,
  requested: string | undefined,
): Promise<string | undefined> {
  const principal = request.principal;
  if (principal?.kind === 'session') {
    if (requested !== undefined) await sessionForRequest(app, request, requested);
    return principal.session.id;
  }
  return requested;
}
