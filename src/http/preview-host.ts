// Who may open a preview in its host-name form (`P-<key>.<preview domain>`, src/preview/host-form.ts),
// for the HTTP route and WebSocket upgrades alike: the session token (or the admin key) as a Bearer
// header, or the cookie that a link signed in with. Either must be for this very session and port.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { toolgateError } from '../lib/errors.js';
import type { PreviewRecord } from '../preview/audit.js';
import type { PreviewGrant } from '../preview/links.js';
import { hostTargetOf, linkCookieOf, type HostTarget } from '../preview/host-form.js';
import type { SessionRecord } from '../store/sessions.js';
import { principalOfBearer } from './auth.js';
import { originForm } from './origin-form.js';

export interface HostAccess {
  readonly session: SessionRecord;
  readonly port: number;
  readonly caller: PreviewRecord['caller'];
}

/** The host-name form target of a request's Host, when the preview domain is set and the Host is one. */
export const hostTargetOfRequest = (app: FastifyInstance, headers: IncomingHttpHeaders) =>
  hostTargetOf(headers.host, app.services.config.preview.domain);

/** A link token that grants exactly this session and port (signature and expiry checked), else 401. */
export function verifyHostLink(app: FastifyInstance, token: string, target: HostTarget): PreviewGrant {
  const grant = app.services.preview.verify(token);
  if (grant.sessionId !== target.sessionId || grant.port !== target.port) {
    throw toolgateError('PREVIEW_LINK_INVALID', 'This preview link is for another session or port', {
      suggestion:
        'Open the link made for this port (the hostUrl of POST /v1/sessions/{id}/ports/{port}/links).',
    });
  }
  return grant;
}

export async function hostAccess(
  app: FastifyInstance,
  headers: IncomingHttpHeaders,
  target: HostTarget,
): Promise<HostAccess> {
  const { sessions } = app.services;
  let caller: PreviewRecord['caller'];
  if (headers.authorization !== undefined) {
    const principal = await principalOfBearer(app, headers.authorization);
    if (!principal) throw toolgateError('UNAUTHORIZED', 'Missing or invalid bearer token');
    if (principal.kind === 'session' && principal.session.id !== target.sessionId) {
      throw toolgateError('SESSION_NOT_FOUND', `Session ${target.sessionId} not found`);
    }
    caller = principal.kind;
  } else {
    const token = linkCookieOf(headers.cookie);
    if (token === undefined) {
      throw toolgateError('UNAUTHORIZED', 'This preview needs a link or a bearer token', {
        suggestion:
          'Open the hostUrl that POST /v1/sessions/{id}/ports/{port}/links answers (it signs this browser in), or send the session token as a Bearer header.',
      });
    }
    verifyHostLink(app, token, target);
    caller = 'link';
  }
  const session = await sessions.get(target.sessionId);
  if (!session) throw toolgateError('SESSION_NOT_FOUND', `Session ${target.sessionId} not found`);
  return { session, port: target.port, caller };
}

/** The route every host-name form request is routed to: the host's key, then the app's path. */
export const HOST_ROUTE_PREFIX = '/v1/preview-hosts';

/**
 * Fastify's rewriteUrl, with the preview domain set: a request whose Host names a preview is routed to
 * HOST_ROUTE_PREFIX/<port>-<key>/<its path>, so every path of the app (`/`, `/v1/…`, `/mcp`) reaches
 * the app rather than toolgate's own route of that name. request.originalUrl keeps the path as sent.
 */
export function previewHostRewrite(domain: string | undefined) {
  return (req: { url?: string; headers: IncomingHttpHeaders }): string => {
    const url = req.url ?? '/';
    const target = hostTargetOf(req.headers.host, domain);
    return target ? `${HOST_ROUTE_PREFIX}/${target.label}${originForm(url)}` : url;
  };
}
