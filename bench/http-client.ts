// A keep-alive HTTP/1.1 client on node:http, for the sequential per-call benches. fetch (undici) spends
// about 0.3 ms of client CPU per request on this machine, as much as the stdio baseline's whole call, so
// the bench measures with the kind of client an agent harness keeps (requests.Session, an undici Pool):
// one persistent connection, no per-call setup. `fetchLike` lets the MCP SDK's client use the same one.
import http, { type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { AnswerHeaders, BufferedResponse, NULL_BODY_STATUSES } from './http-response.js';

export interface HttpClient {
  post(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: string }>;
  fetchLike(url: string | URL, init?: RequestInit): Promise<Response>;
  close(): void;
}

/** RequestInit headers as the object node:http takes. */
function requestHeaders(init: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  (init instanceof Headers ? init : new Headers(init)).forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

function requestBody(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  throw new TypeError('fetchLike sends string and byte bodies only');
}

// One "abort" listener per signal, not one per request: the SDK passes its transport's signal with
// every call, and adding and removing an EventTarget listener each time was a visible share of the
// adapter's CPU. Aborting destroys the signal's requests in flight, which rejects them (or errors the
// body stream of one already answered) with the signal's reason, as fetch does.
const inFlight = new WeakMap<AbortSignal, Set<http.ClientRequest>>();
function abortWith(signal: AbortSignal, req: http.ClientRequest) {
  if (signal.aborted) return req.destroy(signal.reason as Error);
  let requests = inFlight.get(signal);
  if (!requests) {
    const tracked = new Set<http.ClientRequest>();
    signal.addEventListener('abort', () => tracked.forEach((r) => r.destroy(signal.reason as Error)), {
      once: true,
    });
    inFlight.set(signal, (requests = tracked));
  }
  requests.add(req);
  req.once('close', () => requests.delete(req));
}

export function keepAliveClient(): HttpClient {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  // A GET is the SDK's server-to-client event stream, open for the client's life: its own connection,
  // so it never holds the one the calls take turns on.
  const streamAgent = new http.Agent({ keepAlive: false });
  const request = (
    url: string | URL,
    options: http.RequestOptions,
    body: string | Uint8Array | undefined,
    signal?: AbortSignal | null,
  ): Promise<IncomingMessage> =>
    new Promise((resolve, reject) => {
      const req = http.request(url, options, resolve);
      req.on('error', reject);
      if (signal) abortWith(signal, req);
      req.end(body);
    });
  const readAll = (res: IncomingMessage): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
      res.on('error', reject);
    });
  return {
    async post(url, body, headers) {
      const res = await request(
        url,
        { method: 'POST', agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
        body,
      );
      return { status: res.statusCode ?? 0, body: (await readAll(res)).toString('utf8') };
    },
    // fetch over the same connection, for the MCP SDK's client: status, headers, the body as text, JSON or
    // bytes, an event stream answer as a stream (read as it arrives), the init's signal aborts. Redirects
    // are returned, not followed: the SDK asks for redirect "manual" and follows within the origin itself.
    async fetchLike(url, init = {}) {
      const method = (init.method ?? 'GET').toUpperCase();
      const headers = requestHeaders(init.headers);
      const body = requestBody(init.body);
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      const res = await request(
        url,
        { method, headers, agent: method === 'GET' ? streamAgent : agent },
        body,
        init.signal,
      );
      const status = res.statusCode ?? 0;
      const statusText = res.statusMessage ?? '';
      if (/^text\/event-stream\s*(;|$)/i.test(res.headers['content-type'] ?? '')) {
        const stream = Readable.toWeb(res) as ReadableStream<Uint8Array>;
        return new Response(stream, { status, statusText, headers: new AnswerHeaders(res) });
      }
      const bytes = await readAll(res);
      const empty = NULL_BODY_STATUSES.has(status) || method === 'HEAD';
      return new BufferedResponse(
        status,
        statusText,
        new AnswerHeaders(res),
        empty ? null : bytes,
        String(url),
      );
    },
    close: () => {
      agent.destroy();
      streamAgent.destroy();
    },
  };
}
