// A session's servers, reachable through toolgate (docs/previews.md):
// - /v1/sessions/{id}/ports/{port}/… with the session token (or the admin key) as a Bearer header;
// - /v1/previews/{token}/… with a signed, expiring link (POST …/ports/{port}/links, routes/ports.ts), for
//   browsers: the token is in the path, so the page's relative URLs carry it and no cookie is needed.
// Any method, bodies streamed both ways, nothing parsed: these routes take every content type as is.
// - the host-name form, P-<key>.<preview domain> (config preview.domain): the app at `/`, for apps that
//   assume they run there; a link signs a browser in with a cookie of that host only.
// WebSocket upgrades of the same paths are answered in http/preview-upgrade.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sessionForRequest } from '../http/auth.js';
import { appPathOf, forwardPreview } from '../http/preview-proxy.js';
import { toolgateError } from '../lib/errors.js';
import { HOST_ROUTE_PREFIX, hostAccess, hostTargetOfRequest, verifyHostLink } from '../http/preview-host.js';
import { originForm } from '../http/origin-form.js';
import { HOST_LINK_COOKIE, HOST_LINK_PARAM, hostKeyOf } from '../preview/host-form.js';

/** A port named in a URL: 1–65535, digits only. */
export function portParam(text: string | undefined): number {
  const port = /^\d{1,5}$/.test(text ?? '') ? Number(text) : NaN;
  if (!(port >= 1 && port <= 65535)) {
    throw toolgateError('VALIDATION_FAILED', `"${String(text).slice(0, 20)}" is not a TCP port (1–65535)`);
  }
  return port;
}

/** A preview's root without its slash: redirected, so the page's relative URLs resolve under it. */
function slashRedirect(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const [path, query] = request.url.split(/\?(.*)/s);
  return reply.redirect(`${path}/${query ? `?${query}` : ''}`, 308);
}

export default async function previewRoutes(app: FastifyInstance): Promise<void> {
  const { preview, sessions } = app.services;
  // The app reads the body, not toolgate: every content type (and none) passes through unparsed.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

  const byToken = async (request: FastifyRequest, reply: FastifyReply) => {
    const { id, port: portText } = request.params as { id: string; port: string };
    const port = portParam(portText);
    const session = await sessionForRequest(app, request, id);
    const prefix = `/v1/sessions/${id}/ports/${port}`;
    if (request.url.split('?')[0] === prefix) return slashRedirect(request, reply);
    const caller = request.principal?.kind === 'admin' ? 'admin' : 'session';
    return forwardPreview(app, request, reply, {
      session,
      port,
      prefix,
      appPath: appPathOf(request.url, prefix),
      caller,
    });
  };
  const byLink = async (request: FastifyRequest, reply: FastifyReply) => {
    const { token } = request.params as { token: string };
    const grant = preview.verify(token);
    const session = await sessions.get(grant.sessionId);
    if (!session) throw toolgateError('SESSION_NOT_FOUND', 'The session of this preview link is gone');
    const prefix = `/v1/previews/${token}`;
    if (request.url.split('?')[0] === prefix) return slashRedirect(request, reply);
    return forwardPreview(app, request, reply, {
      session,
      port: grant.port,
      prefix,
      appPath: appPathOf(request.url, prefix),
      caller: 'link',
    });
  };
  /**
   * The host-name form (P-<key>.<preview domain>, routed here by previewHostRewrite): the app at `/`.
   * `?toolgate_link=<token>` signs the browser in: a cookie of this host only, then the same URL without it.
   */
  const byHost = async (request: FastifyRequest, reply: FastifyReply) => {
    const { key } = request.params as { key: string };
    const target = hostTargetOfRequest(app, request.headers);
    if (!target || `${target.port}-${hostKeyOf(target.sessionId)}` !== key) {
      throw toolgateError(
        'ROUTE_NOT_FOUND',
        `Route ${request.method}:${request.url.split('?')[0]} not found`,
      );
    }
    const appPath = originForm(request.originalUrl);
    const [path, query = ''] = appPath.split(/\?(.*)/s);
    const params = new URLSearchParams(query);
    const token = params.get(HOST_LINK_PARAM);
    if (token !== null) {
      const grant = verifyHostLink(app, token, target);
      params.delete(HOST_LINK_PARAM);
      const rest = params.toString();
      const maxAge = Math.max(grant.expiresAt - Math.floor(Date.now() / 1000), 0);
      const secure = request.protocol === 'https' ? '; Secure' : '';
      reply.header(
        'set-cookie',
        `${HOST_LINK_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}`,
      );
      // The token leaves the address bar (and so the Referer of what the page loads).
      reply.header('cache-control', 'no-store');
      reply.header('referrer-policy', 'no-referrer');
      return reply.redirect(`${path}${rest ? `?${rest}` : ''}`, 303);
    }
    const access = await hostAccess(app, request.headers, target);
    return forwardPreview(app, request, reply, { ...access, prefix: '', appPath });
  };
  // Not in the OpenAPI document: what these answer is the session's app, not toolgate.
  const hidden = { schema: { hide: true } };
  app.all('/v1/sessions/:id/ports/:port', hidden, byToken);
  app.all('/v1/sessions/:id/ports/:port/*', hidden, byToken);
  app.all('/v1/previews/:token', { ...hidden, config: { access: 'public' } }, byLink);
  app.all('/v1/previews/:token/*', { ...hidden, config: { access: 'public' } }, byLink);
  app.all(`${HOST_ROUTE_PREFIX}/:key`, { ...hidden, config: { access: 'public' } }, byHost);
  app.all(`${HOST_ROUTE_PREFIX}/:key/*`, { ...hidden, config: { access: 'public' } }, byHost);
}
