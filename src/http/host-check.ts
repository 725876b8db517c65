// DNS rebinding: a web page on another site may make the browser send requests to this service (its
// name resolving to 127.0.0.1, or a form posted across origins). Every request's Host and Origin headers
// must name this service, before authentication and on every route (API, /mcp, console): a service bound
// to loopback answers only loopback names (localhost, 127.x.x.x, [::1], any port) and the configured
// `http.allowedHosts`; an Origin must be the request's own host, a loopback origin (loopback bind), or one
// of `http.allowedOrigins`. Anything else is 403 in the error envelope. The MCP transport spec requires
// the Origin check; the same rule holds for the REST API and the console.
import { isIP } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { toolgateError } from '../lib/errors.js';

const isLoopbackName = (hostname: string) => {
  const bare = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1' || bare === '::ffff:127.0.0.1';
};

/** `name[:port]` → the name (IPv6 literals keep their brackets), or undefined when it is not a host. */
function hostnameOf(hostHeader: string): string | undefined {
  try {
    return new URL(`http://${hostHeader}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

export interface HostRule {
  /** The address the service listens on (config.host). */
  listenHost: string;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
  /** The previews' host-name form domain: its sub-domains name this service too. */
  previewDomain?: string;
}

/** Allowed Host values the check remembers; past it the set starts again. */
const ALLOWED_HOSTS_SEEN_MAX = 1024;

export function registerHostCheck(app: FastifyInstance, rule: HostRule): void {
  const loopbackOnly = isLoopbackName(rule.listenHost);
  const allowedHosts = new Set(rule.allowedHosts);
  const allowedOrigins = new Set(rule.allowedOrigins);
  const hostAllowed = (host: string) => {
    const hostname = hostnameOf(host);
    if (hostname === undefined) return false;
    if (allowedHosts.has(hostname) || allowedHosts.has(host.toLowerCase())) return true;
    if (rule.previewDomain && hostname.endsWith(`.${rule.previewDomain}`)) return true;
    // Bound to all interfaces without a list: any name may reach it (a container, a LAN host).
    if (!loopbackOnly && allowedHosts.size === 0) return true;
    return isLoopbackName(hostname);
  };
  const originAllowed = (origin: string, host: string | undefined) => {
    const normalized = origin.toLowerCase();
    if (allowedOrigins.has(normalized)) return true;
    let url: URL;
    try {
      url = new URL(normalized);
    } catch {
      return false; // "null" (a sandboxed frame, a file: page) and anything unparseable
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    if (host !== undefined && url.host === host.toLowerCase()) return true;
    return loopbackOnly && isLoopbackName(url.hostname);
  };
  const refuse = (request: FastifyRequest, code: 'HOST_NOT_ALLOWED' | 'ORIGIN_NOT_ALLOWED', what: string) =>
    toolgateError(code, `${what} is not a name of this service`, {
      suggestion:
        'Call the service by its own address. Behind a proxy, the operator lists the forwarded host in ' +
        'TOOLGATE_ALLOWED_HOSTS (http.allowedHosts) and browser origins in TOOLGATE_ALLOWED_ORIGINS ' +
        '(http.allowedOrigins).',
      details: { method: request.method },
    });

  // Host values found allowed: the answer depends on the value and the config alone, and a client sends
  // the same one on every request (parsing it as a URL each time was ~1.3 µs of every call). Bounded;
  // refused values are not kept.
  const allowedSeen = new Set<string>();
  const hostAllowedCached = (host: string) => {
    if (allowedSeen.has(host)) return true;
    if (!hostAllowed(host)) return false;
    if (allowedSeen.size >= ALLOWED_HOSTS_SEEN_MAX) allowedSeen.clear();
    allowedSeen.add(host);
    return true;
  };

  app.addHook('onRequest', (request, _reply, done) => {
    const host = request.headers.host;
    // No Host at all (HTTP/1.0) cannot come from a rebinding browser, which always sends the page's name.
    if (host !== undefined && !hostAllowedCached(host)) {
      return done(refuse(request, 'HOST_NOT_ALLOWED', `Host "${host.slice(0, 200)}"`));
    }
    const origin = request.headers.origin;
    // A preview link's page in a sandboxed frame (the console's inline view) has an opaque origin and
    // sends "null" with its module scripts, fetches and forms. The link form carries its authority in
    // the path (a signed token no other site can make), never in ambient credentials, so "null" there
    // forges nothing; the Host check above still holds.
    const sandboxedPreview = origin === 'null' && request.url.startsWith('/v1/previews/');
    if (origin !== undefined && !sandboxedPreview && !originAllowed(origin, host)) {
      return done(refuse(request, 'ORIGIN_NOT_ALLOWED', `Origin "${origin.slice(0, 200)}"`));
    }
    done();
  });
}
