// A keep-alive HTTP/1.1 client on node:http, for the sequential per-call benches. fetch (undici) spends
// about 0.3 ms of client CPU per request on this machine, as much as the stdio baseline's whole call, so
// the bench measures with the kind of client an agent harness keeps (requests.Session, an undici Pool):
// one persistent connection, no per-call setup. `fetchLike` lets the MCP SDK's client use the same one.
import http from 'node:http';

export interface HttpClient {
  post(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: string }>;
  fetchLike(url: string | URL, init?: RequestInit): Promise<Response>;
  close(): void;
}

export function keepAliveClient(): HttpClient {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const request = (
    url: string | URL,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> =>
    new Promise((resolve, reject) => {
      const req = http.request(url, { method, agent, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  return {
    async post(url, body, headers) {
      const res = await request(
        url,
        'POST',
        { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        body,
      );
      return { status: res.status, body: res.body };
    },
    async fetchLike(url, init = {}) {
      // The SDK opens a GET event stream for server notifications; this client reads whole bodies, so
      // it declines the stream (405 is how a server says it offers none) and keeps to request/response.
      if ((init.method ?? 'GET') === 'GET') return new Response(null, { status: 405 });
      const headers = Object.fromEntries(new Headers(init.headers).entries());
      const body = typeof init.body === 'string' ? init.body : undefined;
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      const res = await request(url, init.method ?? 'GET', headers, body);
      const out = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (value !== undefined) out.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const empty = res.status === 202 || res.status === 204 || res.status === 304;
      return new Response(empty ? null : res.body, { status: res.status, headers: out });
    },
    close: () => agent.destroy(),
  };
}
