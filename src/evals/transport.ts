// How the runner reaches toolgate: HTTP requests, either injected into an app in this process (the CLI's
// own app, or the service running POST /v1/evals on itself) or sent to a server's URL. Every call goes
// through the real routes, auth, entry formats and pipeline; the runner knows nothing of their insides.
import type { FastifyInstance } from 'fastify';

export interface EvalRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  token: string;
  /** JSON for objects; bytes as they are. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface EvalResponse {
  status: number;
  payload: Buffer;
}

export interface EvalTransport {
  send(request: EvalRequest): Promise<EvalResponse>;
}

function encode(request: EvalRequest): { headers: Record<string, string>; payload?: string | Buffer } {
  const headers: Record<string, string> = { authorization: `Bearer ${request.token}`, ...request.headers };
  if (request.body === undefined) return { headers };
  if (Buffer.isBuffer(request.body)) {
    return { headers: { 'content-type': 'application/octet-stream', ...headers }, payload: request.body };
  }
  return {
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(request.body),
  };
}

/** Requests injected into an app (no socket): what the CLI and POST /v1/evals use. */
export const injectTransport = (app: FastifyInstance): EvalTransport => ({
  async send(request) {
    const { headers, payload } = encode(request);
    const res = await app.inject({ method: request.method, url: request.url, headers, payload });
    return { status: res.statusCode, payload: res.rawPayload };
  },
});

/** Requests to a running server (the CLI's --url). */
export const fetchTransport = (baseUrl: string): EvalTransport => ({
  async send(request) {
    const { headers, payload } = encode(request);
    const res = await fetch(new URL(request.url, baseUrl), {
      method: request.method,
      headers,
      body: typeof payload === 'string' || payload === undefined ? payload : new Uint8Array(payload),
    });
    return { status: res.status, payload: Buffer.from(await res.arrayBuffer()) };
  },
});

/** The payload as JSON, or undefined when it is not JSON. */
export function jsonOf(res: EvalResponse): unknown {
  try {
    return JSON.parse(res.payload.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
