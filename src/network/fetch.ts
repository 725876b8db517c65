// GET a URL for a session from the service process (web_fetch), under the same rules as the session's
// commands: each hop's host is decided by the egress policy and the blocked ranges, the connection goes
// to the address that decision checked (the TCP socket is ours, connected to it; TLS over it still
// verifies the host name), each hop is one audited connection that counts against the session's egress
// quota, and redirects are followed by hand, every hop decided again. The body is capped in bytes and
// time. The bytes counted are the wire's, both ways, read from that TCP socket: the request line and
// headers sent, the answer's headers, framing and TLS records received, not only the body.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import type { NetworkPolicy } from '../config.js';
import { toolgateError } from '../lib/errors.js';
import type { Egress } from './egress.js';
import { refusalText } from './proxy.js';

export interface FetchRequest {
  readonly sessionId: string;
  readonly policy: NetworkPolicy;
  readonly url: string;
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly maxRedirects: number;
  readonly signal: AbortSignal;
}

export interface Fetched {
  readonly url: string;
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
  /** The body was longer than maxBytes and was cut there. */
  readonly truncated: boolean;
  /** The URLs redirected from, in order. */
  readonly redirects: readonly string[];
}

const USER_AGENT = 'toolgate-web_fetch/1 (+https://github.com/toolgate)';

function denied(host: string, reason: string, hop: number) {
  return toolgateError('EGRESS_DENIED', refusalText(host, reason).trim(), {
    suggestion:
      hop > 0
        ? 'A redirect led there; fetch another URL or ask the operator to allow the destination.'
        : "Fetch a URL the session's network policy allows, or ask the operator to allow it.",
    details: { host, reason },
  });
}

/** One hop: decided, connected to the checked address, accounted for. */
async function hop(
  egress: Egress,
  request: FetchRequest,
  url: URL,
  index: number,
  deadline: number,
): Promise<{ status: number; location?: string; contentType: string; body: Buffer; truncated: boolean }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const base = { sessionId: request.sessionId, host, port, via: 'web_fetch' as const };
  const quota = egress.connections.refusal(request.sessionId);
  const decision = quota
    ? { allowed: false as const, reason: quota }
    : await egress.decide(request.policy, host, port);
  if (!decision.allowed) {
    egress.connections.denied(base, decision.reason);
    throw denied(host, decision.reason, index);
  }
  const remaining = deadline - Date.now();
  if (remaining <= 0) throw toolgateError('TIMEOUT', `web_fetch took longer than ${request.timeoutMs} ms`);
  return new Promise((resolve, reject) => {
    let tcp: net.Socket | undefined;
    let connection: ReturnType<Egress['connections']['open']> | undefined;
    const counted = { up: 0, down: 0 };
    let overQuota = false;
    /** Counts the wire bytes that crossed since the last call; false once the session's quota is used up. */
    const countWire = (): boolean => {
      if (!tcp || !connection) return true;
      const up = tcp.bytesWritten - counted.up;
      const down = tcp.bytesRead - counted.down;
      counted.up += up;
      counted.down += down;
      const upWithin = up > 0 ? connection.count('up', up) : true;
      return (down > 0 ? connection.count('down', down) : true) && upWithin;
    };
    const connect = (): net.Socket => {
      tcp = net.connect({ host: decision.address, port, noDelay: true });
      connection = egress.connections.open({ ...base, address: decision.address }, () => req.destroy());
      tcp.once('close', () => {
        countWire();
        connection?.end();
      });
      if (url.protocol !== 'https:') return tcp;
      // TLS over our socket: the server name is the URL's host, and so is the certificate's check.
      return tls.connect({ socket: tcp, host, ...(net.isIP(host) === 0 ? { servername: host } : {}) });
    };
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: 'GET',
      createConnection: connect,
      // No agent: the default port is ours to say, or the Host header would name it (`host:80`).
      defaultPort: url.protocol === 'https:' ? 443 : 80,
      signal: request.signal,
      timeout: remaining,
      headers: {
        'user-agent': USER_AGENT,
        accept: 'text/html,text/markdown,text/plain,application/json;q=0.9,*/*;q=0.5',
        'accept-encoding': 'identity',
        connection: 'close',
      },
    });
    req.on('timeout', () =>
      req.destroy(toolgateError('TIMEOUT', `web_fetch took longer than ${request.timeoutMs} ms`)),
    );
    req.on('error', (err) => {
      countWire();
      connection?.end();
      const quotaNow = egress.connections.refusal(request.sessionId);
      if (quotaNow) return reject(denied(host, quotaNow, index));
      reject(
        'code' in err && err.code === 'TIMEOUT'
          ? err
          : toolgateError('FETCH_FAILED', `Fetching ${url.href} failed: ${err.message}`, {
              suggestion: 'Check the URL; the server may be down or refuse the connection.',
            }),
      );
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const contentType = String(res.headers['content-type'] ?? '');
      const location = status >= 300 && status < 400 ? res.headers.location : undefined;
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      res.on('data', (chunk: Buffer) => {
        if (overQuota) return;
        if (!countWire()) {
          // Nothing of a page the quota did not cover is handed on.
          overQuota = true;
          const why = egress.connections.refusal(request.sessionId) ?? 'the egress quota is used up';
          req.destroy();
          return reject(denied(host, why, index));
        }
        if (location !== undefined) return;
        const room = request.maxBytes - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          size += room;
          truncated = true;
          req.destroy();
          resolve({ status, contentType, body: Buffer.concat(chunks), truncated });
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', () =>
        overQuota
          ? undefined
          : resolve({
              status,
              contentType,
              body: Buffer.concat(chunks),
              truncated,
              ...(location !== undefined ? { location } : {}),
            }),
      );
      res.on('error', (err) => reject(err));
    });
    req.end();
  });
}

export async function fetchUrl(egress: Egress, request: FetchRequest): Promise<Fetched> {
  const deadline = Date.now() + request.timeoutMs;
  const redirects: string[] = [];
  let url = parseUrl(request.url);
  for (let index = 0; ; index++) {
    const answer = await hop(egress, request, url, index, deadline);
    if (answer.location === undefined) {
      return {
        url: url.href,
        status: answer.status,
        contentType: answer.contentType,
        body: answer.body,
        truncated: answer.truncated,
        redirects,
      };
    }
    if (redirects.length >= request.maxRedirects) {
      throw toolgateError('FETCH_FAILED', `More than ${request.maxRedirects} redirects from ${request.url}`);
    }
    redirects.push(url.href);
    url = parseUrl(new URL(answer.location, url).href);
  }
}

function parseUrl(text: string): URL {
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw toolgateError('VALIDATION_FAILED', `"${text.slice(0, 200)}" is not an http(s) URL`, {
      suggestion: 'Give a full URL starting with https:// or http://.',
    });
  }
  if (url.username || url.password) {
    throw toolgateError('VALIDATION_FAILED', 'URLs with credentials are not fetched', {
      suggestion: 'Leave user:password@ out of the URL.',
    });
  }
  return url;
}
