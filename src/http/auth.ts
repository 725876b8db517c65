// Bearer authentication: the admin key or a session token, checked on every route except the public
// ones (health, docs, openapi.json). Also the one place that decides whether a caller may see a session.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { toolgateError, type ToolgateError } from '../lib/errors.js';
import { sha256Digest as digest } from '../lib/text.js';
import type { SessionRecord } from '../store/sessions.js';

/** The admin key, or a named API key with the admin's rights (config apiKeys: `key` is its name). */
export type Principal = { kind: 'admin'; key?: string } | { kind: 'session'; session: SessionRecord };

/** Route-level access: `public` needs no token, `admin` needs the admin key, `any` (default) either. */
export type RouteAccess = 'public' | 'admin' | 'any';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    access?: RouteAccess;
    /** The WWW-Authenticate value of this route's 401 (default: `Bearer`). */
    bearerChallenge?: (request: FastifyRequest, problem: 'missing' | 'invalid') => string;
    /** The 401 message when no token came (default: "Missing bearer token"). */
    missingTokenMessage?: string;
  }
}

const unauthorized = (request: FastifyRequest, problem: 'missing' | 'invalid', message: string) => {
  const config = request.routeOptions.config;
  return toolgateError(
    'UNAUTHORIZED',
    problem === 'missing' ? (config?.missingTokenMessage ?? message) : message,
    {
      suggestion:
        'Send "Authorization: Bearer <token>" with the admin key or a session token from POST /v1/sessions.',
      headers: { 'www-authenticate': config?.bearerChallenge?.(request, problem) ?? 'Bearer' },
    },
  );
};

const tooManyFailures = (retryAfterSeconds: number) =>
  toolgateError('RATE_LIMITED', 'Too many failed authentication attempts from this address', {
    suggestion: `Wait ${retryAfterSeconds} s, then retry with a valid token.`,
    headers: { 'retry-after': String(retryAfterSeconds) },
  });

/** Tokens whose digests auth keeps (see knownDigests); past it the map starts again. */
const KNOWN_TOKENS_MAX = 4096;

/** A token's SHA-256, as compared with the keys' and as the session store's key. */
interface TokenDigest {
  bytes: Buffer;
  hex: string;
}

export function registerAuth(app: FastifyInstance): void {
  const adminDigest = digest(app.services.adminKey.key);
  const namedKeys = Object.entries(app.services.config.apiKeys).map(([name, key]) => ({
    name,
    digest: Buffer.from(key.sha256, 'hex'),
  }));
  const { authFailuresPerWindow, authWindowSeconds } = app.services.config.policy;
  // Per client IP: after too many failed authentications the IP is refused before any token is checked,
  // so guessing tokens (or just hammering the lookup) is bounded.
  const blockedUntil = new Map<string, number>();
  const refuseIfBlocked = (ip: string, now: number) => {
    const until = blockedUntil.get(ip);
    if (until === undefined) return;
    if (until <= now) {
      blockedUntil.delete(ip);
      return;
    }
    throw tooManyFailures(Math.ceil((until - now) / 1000));
  };
  const countFailure = async (ip: string, error: Error) => {
    const result = await app.services.rateLimitStore.hit(
      `auth-ip:${ip}`,
      authFailuresPerWindow,
      authWindowSeconds * 1000,
    );
    if (!result.allowed) {
      blockedUntil.set(ip, Date.now() + result.retryAfterSeconds * 1000);
      throw tooManyFailures(result.retryAfterSeconds);
    }
    throw error;
  };

  // The digest of each token that authenticated lately, by the token: a client sends its token on every
  // call, and hashing it each time was a measurable part of a call's cost. Only tokens that passed are
  // kept (a guesser cannot fill it), a bounded number, and a hit still goes through the checks below
  // (the admin comparison, the session store's own cache with its expiry), so a deleted or expired
  // session is refused as before; the map holds what every request's headers hold anyway.
  const knownDigests = new Map<string, TokenDigest>();
  const digestOf = (token: string): TokenDigest => {
    const known = knownDigests.get(token);
    if (known) return known;
    const bytes = digest(token);
    return { bytes, hex: bytes.toString('hex') };
  };
  const remember = (token: string, tokenDigest: TokenDigest) => {
    if (knownDigests.has(token)) return;
    if (knownDigests.size >= KNOWN_TOKENS_MAX) knownDigests.clear();
    knownDigests.set(token, tokenDigest);
  };

  app.decorateRequest('principal', null);
  /**
   * Authenticates the request; returns the error to count as a failed attempt, or undefined. A token
   * the session store has cached is answered in this call; only a lookup in the database is a promise.
   */
  const authenticate = (
    request: FastifyRequest,
  ): ToolgateError | undefined | Promise<ToolgateError | undefined> => {
    const header = request.headers.authorization;
    if (!header) return unauthorized(request, 'missing', 'Missing bearer token');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) return unauthorized(request, 'invalid', 'Authorization header must be "Bearer <token>"');
    // At most one hash per request: compared with the admin key's, and the key of the session lookup.
    const token = match[1];
    const tokenDigest = digestOf(token);
    if (timingSafeEqual(tokenDigest.bytes, adminDigest)) {
      request.principal = { kind: 'admin' };
      remember(token, tokenDigest);
      return undefined;
    }
    for (const named of namedKeys) {
      if (timingSafeEqual(tokenDigest.bytes, named.digest)) {
        request.principal = { kind: 'admin', key: named.name };
        remember(token, tokenDigest);
        return undefined;
      }
    }
    const hash = tokenDigest.hex;
    const cached = app.services.sessions.cachedByTokenHash(hash);
    if (cached) {
      request.principal = { kind: 'session', session: cached };
      remember(token, tokenDigest);
      return undefined;
    }
    return app.services.sessions.getByTokenHash(hash).then((session) => {
      if (!session) return unauthorized(request, 'invalid', 'Invalid or expired token');
      request.principal = { kind: 'session', session };
      remember(token, tokenDigest);
      return undefined;
    });
  };

  // Callback style: the common case (a valid token) completes without a promise.
  app.addHook('onRequest', (request, _reply, done) => {
    const access = request.routeOptions.config?.access ?? 'any';
    // Unknown routes answer 404 to everyone: a typo deserves the right hint, and there is nothing to protect.
    if (access === 'public' || request.is404) return done();
    const settle = (failure: ToolgateError | undefined) => {
      if (failure) {
        countFailure(request.ip, failure).catch(done);
        return;
      }
      if (access === 'admin' && request.principal!.kind !== 'admin') {
        throw toolgateError('ADMIN_REQUIRED', 'This endpoint needs the admin key', {
          suggestion: 'Session tokens may only use their own session.',
        });
      }
      done();
    };
    try {
      refuseIfBlocked(request.ip, Date.now());
      const failure = authenticate(request);
      if (failure instanceof Promise) failure.then(settle).catch(done);
      else settle(failure);
    } catch (err) {
      done(err as Error);
    }
  });
}

/** The session a caller names by id: admins see any live session, a session token only its own (else 404). */
export async function sessionForRequest(
  app: FastifyInstance,
  request: FastifyRequest,
  id: string,
): Promise<SessionRecord> {
  const principal = request.principal;
  const session =
    principal?.kind === 'session'
      ? principal.session.id === id
        ? principal.session
        : undefined
      : await app.services.sessions.get(id);
  if (!session) throw toolgateError('SESSION_NOT_FOUND', `Session ${id.slice(0, 80)} not found`);
  return session;
}

/**
 * The principal of an Authorization header met outside a route (a WebSocket upgrade, which Fastify does
 * not route): undefined when it names none. The same check as the hook's, without its throttle.
 */
export async function principalOfBearer(
  app: FastifyInstance,
  header: string | undefined,
): Promise<Principal | undefined> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const tokenDigest = digest(match[1]);
  if (timingSafeEqual(tokenDigest, digest(app.services.adminKey.key))) return { kind: 'admin' };
  const session = await app.services.sessions.getByTokenHash(tokenDigest.toString('hex'));
  return session ? { kind: 'session', session } : undefined;
}
