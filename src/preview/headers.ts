// What a preview changes on the way in and out: the app sees a request as if made to it directly at `/`
// (its Host is its own loopback name, the toolgate path prefix gone), never toolgate's Authorization
// header; the browser sees the app's answers with their cookies and redirects kept under the preview's
// path prefix, so one preview's cookies are never sent to another, nor to toolgate's own routes.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { cookiesForApp } from './host-form.js';

/** Hop-by-hop headers (RFC 9110 7.6.1) and toolgate's own: never passed on either way. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Request headers the app never sees: toolgate's credentials and its replicas' hop header. */
const TOOLGATE_ONLY = new Set(['authorization', 'x-toolgate-forwarded-by']);

export interface PreviewTarget {
  readonly port: number;
  /** The path prefix the browser sees the app under, without a trailing slash. */
  readonly prefix: string;
}

/** The headers of a request as the app gets them; `upgrade` keeps Connection and Upgrade (WebSocket). */
export function headersForApp(
  headers: IncomingHttpHeaders,
  target: PreviewTarget,
  { upgrade = false, secure = false }: { upgrade?: boolean; secure?: boolean } = {},
): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || TOOLGATE_ONLY.has(name)) continue;
    if (HOP_BY_HOP.has(name) && !(upgrade && (name === 'connection' || name === 'upgrade'))) continue;
    if (name === 'cookie') {
      // The host-name form's sign-in cookie is toolgate's credential, like the Authorization header.
      const cookie = cookiesForApp(Array.isArray(value) ? value.join('; ') : String(value));
      if (cookie !== undefined) out.cookie = cookie;
      continue;
    }
    out[name] = value;
  }
  // Dev servers often answer only their own names (Vite's allowedHosts): the app is asked as itself.
  out.host = `localhost:${target.port}`;
  if (headers.host !== undefined) out['x-forwarded-host'] = headers.host;
  out['x-forwarded-proto'] = secure ? 'https' : 'http';
  out['x-forwarded-prefix'] = target.prefix;
  return out;
}

const LOOPBACK_URL = /^https?:\/\/(?:localhost|127\.0\.0\.1|\[::1\])(?::\d+)?(?=\/|$|\?|#)/i;

/** A redirect target as the browser must follow it: under the prefix when it points into the app. */
export function locationForClient(location: string, prefix: string): string {
  const local = location.replace(LOOPBACK_URL, '');
  if (local !== location) return `${prefix}${local.startsWith('/') ? '' : '/'}${local}`;
  if (location.startsWith('/') && !location.startsWith('//')) return `${prefix}${location}`;
  return location;
}

/** A Set-Cookie of the app, scoped to the preview: its Path under the prefix, no Domain (host-only). */
export function cookieForClient(cookie: string, prefix: string): string {
  const [pair, ...attributes] = cookie.split(';');
  let path = `${prefix}/`;
  const kept = attributes.filter((attribute) => {
    const [name, ...rest] = attribute.trim().split('=');
    const key = name.toLowerCase();
    if (key === 'domain') return false;
    if (key === 'path') {
      const value = rest.join('=').trim();
      path = value.startsWith('/') ? `${prefix}${value}` : `${prefix}/`;
      return false;
    }
    return true;
  });
  return [pair, ...kept.map((attribute) => attribute.trim()), `Path=${path}`].join('; ');
}

/**
 * The app's answer headers as the browser gets them. `opaqueLink`: a link-form request from an opaque
 * origin (`Origin: null`: the page in a sandboxed frame, the console's inline view). Its module scripts
 * and fetches are cross-origin there, so they need CORS; the link in the path is the whole authority,
 * and a page that holds it may read what it opens anyway, so `null` is allowed unless the app says else.
 */
export function headersForClient(
  headers: IncomingHttpHeaders,
  prefix: string,
  { opaqueLink = false }: { opaqueLink?: boolean } = {},
): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders =
    opaqueLink && headers['access-control-allow-origin'] === undefined
      ? { 'access-control-allow-origin': 'null' }
      : {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    if (name === 'set-cookie')
      out[name] = (value as string[]).map((cookie) => cookieForClient(cookie, prefix));
    else if (name === 'location' && typeof value === 'string') out[name] = locationForClient(value, prefix);
    else out[name] = value;
  }
  return out;
}
