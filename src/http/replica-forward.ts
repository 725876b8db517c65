// Several replicas, one service: a request for a session is served by the replica that owns the
// session's runtime (its lease), whichever replica it reached. Authentication runs first, where the
// caller's own address is seen (the per-address throttle of failed tokens), and again on the owner; a
// session token naming another session than its own is refused here (404, as the owner would), before
// any lease is taken or forward made. This hook finds the request's session (the path's id, the parked
// call an approval decides, the session token's session for MCP), asks the ownership for a route, and
// forwards the request's path (never a request line's absolute form) to the owner over HTTP
// when the owner is another replica: @fastify/reply-from over undici, streaming the body both ways
// (SSE, streamed command output and MCP streams pass through as they come), all headers kept (the Host
// too: the owner's host check sees what the client sent) and one hop header added, so a forwarded
// request is never forwarded again. An owner that cannot be reached (refused, connect timeout) has its
// session taken over here; the caller is told to retry (503, Retry-After), because the request's body is
// already spent on the failed forward. Registered only with replica config: one process runs none of it.
import { PassThrough } from 'node:stream';
import replyFrom from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toolgateError } from '../lib/errors.js';
import { sessionOfLink } from '../preview/links.js';
import { sessionIdOfHostKey } from '../preview/host-form.js';
import { originForm } from './origin-form.js';
import { HOST_ROUTE_PREFIX } from './preview-host.js';
import type { SessionOwnership } from '../ops/session-ownership.js';
import type { Lease } from '../store/leases.js';
import type { SessionRouting } from '../store/session-routing.js';

/** Names the replica that forwarded the request; present means: serve it here or refuse, never pass on. */
export const FORWARDED_BY = 'x-toolgate-forwarded-by';

/** Names the replica that answered (a forwarded answer carries the owner's, copied with its headers). */
export const SERVED_BY = 'x-toolgate-replica';

/** The forward never reached the owner: safe to take the session over. */
const UNREACHED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export interface ReplicaForwardOptions {
  readonly ownership: SessionOwnership;
  readonly routing: SessionRouting;
  /** Lets go of the runtime this replica started for a session it created but does not own. */
  readonly handOff: (sessionId: string) => Promise<void>;
}

/** Routes that create a session (answering 201 with its id) and may start its runtime to seed it. */
const CREATES_SESSION = new Set(['/v1/sessions', '/v1/sessions/:id/fork']);

/** Methods whose body is passed on, as the stream it arrives in. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export async function registerReplicaForward(
  app: FastifyInstance,
  options: ReplicaForwardOptions,
): Promise<void> {
  const { ownership, routing } = options;
  await app.register(replyFrom, {
    disableRequestLogging: true,
    undici: {
      connections: 64,
      // A tool call may run for ten minutes; an event stream may stay quiet for longer than that.
      headersTimeout: 660_000,
      bodyTimeout: 0,
      connect: { timeout: 2000 },
    },
  });

  /** The session a request is for, when it is one whose owner must serve it. */
  const sessionOf = async (request: FastifyRequest): Promise<string | undefined> => {
    const route = request.routeOptions.url ?? '';
    const params = request.params as Record<string, string | undefined>;
    if (route.startsWith('/v1/sessions/:id')) return params.id;
    // A preview link names its session in its token (checked by the owner).
    if (route.startsWith('/v1/previews/:token')) return sessionOfLink(params.token ?? '');
    // The host-name form's host names its session (src/preview/host-form.ts).
    if (route.startsWith(`${HOST_ROUTE_PREFIX}/:key`)) {
      return sessionIdOfHostKey((params.key ?? '').split('-')[1] ?? '');
    }
    // The approved call runs where the session's runtime is, and wakes the long-poll waiting there.
    if (route.startsWith('/v1/approvals/:callId/') && params.callId) {
      return routing.sessionOfApproval(params.callId);
    }
    // Authenticated already (this hook runs after auth): a session token's session.
    if (route === '/mcp' && request.principal?.kind === 'session') return request.principal.session.id;
    return undefined;
  };

  const forward = (request: FastifyRequest, reply: FastifyReply, lease: Lease): FastifyReply => {
    // Nothing has read the body yet (onRequest): it goes on as it arrives. Through a stream of its own:
    // a failed forward destroys the stream it was given, and the caller's request must live on to be
    // answered.
    if (BODY_METHODS.has(request.method) && request.headers['content-length'] !== '0') {
      (request as { body: unknown }).body = request.raw.pipe(new PassThrough());
    }
    // As the client sent it: a preview's host-name form was rewritten for routing, and the owner rewrites
    // it again from the Host header, which goes along.
    return reply.from(`${lease.replicaUrl}${originForm(request.originalUrl)}`, {
      rewriteRequestHeaders: (original, headers) => ({
        ...headers,
        host: original.headers.host ?? headers.host,
        [FORWARDED_BY]: ownership.self.id,
      }),
      onError: (failed, { error }) => {
        const code = (error as { cause?: { code?: string } }).cause?.code ?? '';
        const unreached = UNREACHED.has(code);
        const settle = unreached ? ownership.takeOver(lease).catch(() => false) : Promise.resolve(false);
        void settle.then(() => {
          if (failed.sent) return;
          failed.header('retry-after', '1');
          failed.send(
            // Two outcomes, two codes: never reached (nothing ran, safe to retry) and reached, then the
            // replica failed (it may have run, and its result may never have been stored: a retry with
            // the same Idempotency-Key can run it again). docs/scaling.md states the guarantee.
            unreached
              ? toolgateError(
                  'RUNTIME_UNAVAILABLE',
                  'The replica serving this session is gone; the session moves to another replica',
                  {
                    suggestion:
                      'Retry the request (with the same Idempotency-Key): it never reached a replica, and is served by another one now.',
                    details: { replica: lease.replicaId },
                  },
                )
              : toolgateError(
                  'OUTCOME_UNKNOWN',
                  'The replica serving this session failed after the request reached it: the call may or may not have run',
                  {
                    suggestion:
                      'A read is safe to retry. Before retrying a call that writes or executes, check its effect (read the file, list the audit with GET /v1/audit): if that replica died before storing the result, a retry with the same Idempotency-Key runs it again.',
                    details: { replica: lease.replicaId },
                  },
                ),
          );
        });
      },
    });
  };

  // A new session belongs to the replica that first serves it (the balancer's pick for its id), not to
  // the one that created it: a runtime started here to write its seed files is let go of (stopped, or
  // left running for the owner to re-attach where runtimes outlive the process).
  const created = new WeakMap<FastifyRequest, string>();
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method !== 'POST' || reply.statusCode !== 201 || typeof payload !== 'string') return payload;
    if (!CREATES_SESSION.has(request.routeOptions.url ?? '')) return payload;
    try {
      const { id } = JSON.parse(payload) as { id?: unknown };
      if (typeof id === 'string') created.set(request, id);
    } catch {
      // not the session view: nothing to hand off
    }
    return payload;
  });
  app.addHook('onResponse', async (request) => {
    const sessionId = created.get(request);
    if (sessionId !== undefined && !ownership.holds(sessionId)) {
      await options
        .handOff(sessionId)
        .catch((err: unknown) =>
          request.log.warn({ err, sessionId }, 'could not hand a new session runtime off'),
        );
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header(SERVED_BY, ownership.self.id);
    if (request.is404) return;
    const sessionId = await sessionOf(request);
    if (sessionId === undefined) return;
    // A session token is good for its own session only: checked here, not only by the owner's handler,
    // or a token for one session would make this replica take (or forward to) another's runtime.
    const principal = request.principal;
    if (principal?.kind === 'session' && principal.session.id !== sessionId) {
      throw toolgateError('SESSION_NOT_FOUND', `Session ${sessionId.slice(0, 80)} not found`);
    }
    // No lease is written for an id nobody created. A token another replica's deletion has not reached
    // yet (auth caches tokens for a second) must not restart a runtime on a removed workspace either.
    if (!ownership.holds(sessionId) && !(await routing.sessionExists(sessionId))) {
      throw toolgateError('SESSION_NOT_FOUND', `Session ${sessionId.slice(0, 80)} not found`);
    }
    const route = await ownership.route(sessionId);
    if (route.here) return;
    if (request.headers[FORWARDED_BY] !== undefined) {
      // The owner changed while the request was on its way: the caller retries and is routed afresh.
      reply.header('retry-after', '1');
      throw toolgateError('RUNTIME_UNAVAILABLE', 'The session is moving between replicas', {
        suggestion: 'Retry the request (with the same Idempotency-Key).',
        details: { replica: route.lease.replicaId },
      });
    }
    return forward(request, reply, route.lease);
  });
}
