// The host-name form of a preview (docs/previews.md): with `preview.domain` set, port P of a session is
// also served at the root of `P-<key>.<domain>`, for apps that assume they run at `/`. A session id
// (`ses_` and 16 base64url characters) has upper and lower case, and browsers lower-case host names, so
// the host carries the id's 12 random bytes in hex: a key that maps back to exactly one session id.
// A browser signs in there once with a link token in the query (`?toolgate_link=<token>`), which toolgate
// turns into a cookie of that host only and strips from what the app sees.

const SESSION_ID = /^ses_([A-Za-z0-9_-]{16})$/;
const KEY = /^[0-9a-f]{24}$/;

/** The query parameter that carries a link token to the host form, and the cookie it becomes. */
export const HOST_LINK_PARAM = 'toolgate_link';
export const HOST_LINK_COOKIE = 'toolgate_preview';

/** The host key of a session id, or undefined for an id not made by this service's generator. */
export function hostKeyOf(sessionId: string): string | undefined {
  const match = SESSION_ID.exec(sessionId);
  return match ? Buffer.from(match[1], 'base64url').toString('hex') : undefined;
}

/** The session id of a host key (the inverse of hostKeyOf). */
export function sessionIdOfHostKey(key: string): string | undefined {
  return KEY.test(key) ? `ses_${Buffer.from(key, 'hex').toString('base64url')}` : undefined;
}

export interface HostTarget {
  readonly sessionId: string;
  readonly port: number;
  /** The host's first label as sent, lower-cased: `<port>-<key>`. */
  readonly label: string;
}

/** The session and port a Host header names under the preview domain, or undefined when it names none. */
export function hostTargetOf(host: string | undefined, domain: string | undefined): HostTarget | undefined {
  if (!host || !domain) return undefined;
  const name = host.replace(/:\d{1,5}$/, '').toLowerCase();
  if (!name.endsWith(`.${domain}`)) return undefined;
  const label = name.slice(0, -domain.length - 1);
  const match = /^(\d{1,5})-([0-9a-f]{24})$/.exec(label);
  if (!match) return undefined;
  const port = Number(match[1]);
  const sessionId = sessionIdOfHostKey(match[2]);
  return sessionId && port >= 1 && port <= 65535 ? { sessionId, port, label } : undefined;
}

/** The preview host of a port of a session (with the port the service is reached on), if it has one. */
export function previewHost(
  sessionId: string,
  port: number,
  domain: string | undefined,
  servicePort: string | undefined,
): string | undefined {
  const key = hostKeyOf(sessionId);
  if (!key || !domain) return undefined;
  return `${port}-${key}.${domain}${servicePort ? `:${servicePort}` : ''}`;
}

/** A Cookie header without toolgate's own cookie (undefined when nothing else is left). */
export function cookiesForApp(cookie: string | undefined): string | undefined {
  if (!cookie) return undefined;
  const kept = cookie
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '' && pair.split('=')[0].trim() !== HOST_LINK_COOKIE);
  return kept.length > 0 ? kept.join('; ') : undefined;
}

/** The link token in a Cookie header, if toolgate set one. */
export function linkCookieOf(cookie: string | undefined): string | undefined {
  for (const pair of (cookie ?? '').split(';')) {
    const [name, ...value] = pair.trim().split('=');
    if (name === HOST_LINK_COOKIE) return value.join('=');
  }
  return undefined;
}
