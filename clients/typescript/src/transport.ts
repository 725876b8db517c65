// HTTP for the client, on the global fetch: auth, retries, and how an answer becomes a value or a
// ToolgateError. Retries are safe by construction: a tool call always carries an Idempotency-Key (one
// is made when the caller gives none), so a repeat after a lost answer replays the stored outcome
// instead of running the tool again; GET, PUT and DELETE are idempotent anyway; anything else is
// repeated only when the connection was refused before the request was sent.
import { ApprovalPending, ToolgateError } from './errors.js';

/** How often and how long to wait: exponential backoff with jitter, or the service's Retry-After. */
export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 3, baseDelayMs: 200, maxDelayMs: 10_000 };

const RETRY_STATUSES = new Set([429, 502, 503]);

export interface Request {
  method: string;
  path: string;
  token?: string;
  json?: unknown;
  body?: Uint8Array | string;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A connection refused or reset before any byte was answered (what fetch reports as a TypeError). */
const refused = (err: unknown) => {
  const code = (err as { cause?: { code?: string } }).cause?.code;
  return code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN';
};

export class Transport {
  readonly url: string;
  constructor(
    url: string,
    readonly retry: RetryPolicy,
    private readonly fetchImpl: typeof fetch,
  ) {
    this.url = url.replace(/\/+$/, '');
  }

  async send(request: Request): Promise<Response> {
    const headers: Record<string, string> = { ...request.headers };
    if (request.token) headers.authorization = `Bearer ${request.token}`;
    let body: Uint8Array | string | undefined = request.body;
    if (request.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.json);
    }
    const query = Object.entries(request.query ?? {}).filter(([, v]) => v !== undefined);
    const url = `${this.url}${request.path}${query.length ? `?${new URLSearchParams(query.map(([k, v]) => [k, String(v)]))}` : ''}`;
    const safe = ['GET', 'HEAD', 'PUT', 'DELETE'].includes(request.method) || 'idempotency-key' in headers;
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.fetchImpl(url, {
          method: request.method,
          headers,
          body: body as BodyInit | undefined,
          signal: request.signal,
        });
      } catch (err) {
        if (request.signal?.aborted || attempt >= this.retry.maxRetries || (!safe && !refused(err)))
          throw err;
        await sleep(this.delay(attempt));
        continue;
      }
      if (safe && RETRY_STATUSES.has(response.status) && attempt < this.retry.maxRetries) {
        await response.body?.cancel();
        await sleep(this.delay(attempt, response));
        continue;
      }
      return response;
    }
  }

  private delay(attempt: number, response?: Response): number {
    const after = Number(response?.headers.get('retry-after'));
    if (response?.headers.has('retry-after') && Number.isFinite(after)) {
      return Math.min(after * 1000, this.retry.maxDelayMs);
    }
    return Math.min(this.retry.baseDelayMs * 2 ** attempt, this.retry.maxDelayMs) * (0.5 + Math.random() / 2);
  }

  /** The JSON of a success (undefined for 204), or the failure's envelope thrown as ToolgateError. */
  async json<T>(request: Request): Promise<T> {
    return decode<T>(await this.send(request));
  }

  /** The bytes of a success; a failure still has the JSON envelope. */
  async bytes(request: Request): Promise<Uint8Array> {
    const response = await this.send(request);
    if (!response.ok) throw ToolgateError.fromEnvelope(await bodyOf(response), response.status);
    return new Uint8Array(await response.arrayBuffer());
  }
}

async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function decode<T>(response: Response): Promise<T> {
  if (response.status === 204) return undefined as T;
  const body = await bodyOf(response);
  if (response.status === 202 && (body as { pending?: boolean }).pending) {
    throw new ApprovalPending(body as { callId?: string });
  }
  if (!response.ok) throw ToolgateError.fromEnvelope(body, response.status);
  return body as T;
}

export const newIdempotencyKey = () => `tgk_${crypto.randomUUID().replace(/-/g, '')}`;

/** A workspace path for /files/{path}: slashes kept, everything else percent-encoded once. */
export const filePath = (path: string) =>
  path.replace(/^\/+/, '').split('/').map(encodeURIComponent).join('/');
