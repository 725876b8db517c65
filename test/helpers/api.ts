// A supertest-like request chain over Fastify's app.inject() (light-my-request): the same calls the
// route tests make (`.post(url).set(header, value).send(body)`, awaited for `{ status, body, headers,
// text }`), with no socket, no listen and no HTTP parser in between. Responses are parsed the way
// supertest parses them, so a test file moves from a socket to inject by changing its setup line.
// The OpenAPI conformance check is an onSend hook on the app, so it sees injected responses as well.
import type { FastifyInstance, HTTPMethods } from 'fastify';

export interface ApiResponse {
  status: number;
  /** Parsed JSON for JSON types, a Buffer for binary ones (or after .bytes()), {} otherwise: as supertest. */
  body: any;
  /** Lower-case names; a repeated header's values joined with ", " (as fetch's Headers.get). */
  headers: Record<string, string>;
  /** The payload as UTF-8 text. */
  text: string;
}

const JSON_TYPE = /[/+]json($|[^-\w])/i;
const BINARY_TYPE = /^(image\/|application\/(octet-stream|pdf)\b)/i;

/** One request, sent when it is first awaited (as supertest's Test): `.then` starts it. */
export class InjectRequest implements PromiseLike<ApiResponse> {
  private readonly headers: Record<string, string> = {};
  private readonly search = new URLSearchParams();
  private payload: string | Buffer | undefined;
  private expectedStatus: number | undefined;
  private readonly expectedHeaders: [string, string][] = [];
  private rawBody = false;
  private sent: Promise<ApiResponse> | undefined;

  constructor(
    private readonly app: FastifyInstance,
    private readonly method: HTTPMethods,
    private readonly url: string,
  ) {
    // light-my-request resolves the URL (new URL), which drops "." and ".." segments (also as %2e): a
    // test sending one would silently hit another route. Such tests need a real client (startApp).
    if (/(^|\/)(\.|%2e){1,2}(\/|$)/i.test(url.split('?')[0]!))
      throw new Error(`${url}: inject normalizes dot segments away; send it over a socket (startApp)`);
  }

  /** Sets one header, or several from an object. */
  set(name: string | Record<string, string>, value?: string): this {
    const pairs = typeof name === 'string' ? { [name]: value ?? '' } : name;
    for (const [key, val] of Object.entries(pairs)) this.headers[key.toLowerCase()] = val;
    return this;
  }

  /** Appends query parameters to the URL. */
  query(params: Record<string, string | number | boolean> | string): this {
    const entries = typeof params === 'string' ? new URLSearchParams(params) : Object.entries(params);
    for (const [key, val] of entries) this.search.append(key, String(val));
    return this;
  }

  /** Objects go as JSON; strings default to a form body and buffers go as they are (as superagent). */
  send(body?: unknown): this {
    if (body === undefined) return this;
    if (typeof body === 'string') {
      this.headers['content-type'] ??= 'application/x-www-form-urlencoded';
      this.payload = body;
    } else if (Buffer.isBuffer(body)) {
      this.payload = body;
    } else {
      this.headers['content-type'] ??= 'application/json';
      this.payload = JSON.stringify(body);
    }
    return this;
  }

  /** Fails the request unless the response has this status, or this header value (supertest's `.expect`). */
  expect(status: number): this;
  expect(header: string, value: string): this;
  expect(statusOrHeader: number | string, value?: string): this {
    if (typeof statusOrHeader === 'number') this.expectedStatus = statusOrHeader;
    else this.expectedHeaders.push([statusOrHeader.toLowerCase(), value ?? '']);
    return this;
  }

  /** Accepted for supertest compatibility: an injected response is always complete. */
  buffer(_whole = true): this {
    return this;
  }

  /** The body is the raw payload as a Buffer, whatever its content type (downloads). */
  bytes(): this {
    this.rawBody = true;
    return this;
  }

  then<A = ApiResponse, B = never>(
    onFulfilled?: ((value: ApiResponse) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    this.sent ??= this.run();
    return this.sent.then(onFulfilled, onRejected);
  }

  private async run(): Promise<ApiResponse> {
    const query = this.search.toString();
    const url = query ? `${this.url}${this.url.includes('?') ? '&' : '?'}${query}` : this.url;
    const res = await this.app.inject({
      method: this.method,
      url,
      headers: this.headers,
      ...(this.payload === undefined ? {} : { payload: this.payload }),
    });
    const headers: Record<string, string> = {};
    for (const [key, val] of Object.entries(res.headers)) {
      if (val !== undefined) headers[key] = Array.isArray(val) ? val.join(', ') : String(val);
    }
    const type = headers['content-type'] ?? '';
    const raw = res.rawPayload;
    const text = raw.toString('utf8');
    const response: ApiResponse = { status: res.statusCode, headers, text, body: parseBody(type, raw, text) };
    if (this.rawBody) response.body = raw;
    const where = `${this.method} ${url}`;
    if (this.expectedStatus !== undefined && response.status !== this.expectedStatus) {
      throw new Error(
        `expected ${this.expectedStatus}, got ${response.status} for ${where}: ${text.slice(0, 500)}`,
      );
    }
    for (const [name, value] of this.expectedHeaders) {
      if (headers[name] !== value)
        throw new Error(`expected header ${name} "${value}", got "${headers[name]}" for ${where}`);
    }
    return response;
  }
}

function parseBody(type: string, raw: Buffer, text: string): unknown {
  if (JSON_TYPE.test(type)) {
    if (text === '') return {};
    try {
      return JSON.parse(text);
    } catch {
      return {};
    }
  }
  if (BINARY_TYPE.test(type)) return raw;
  return {};
}

/** The request starters of an app, as supertest(app.server) has them. */
export interface Api {
  get(url: string): InjectRequest;
  post(url: string): InjectRequest;
  put(url: string): InjectRequest;
  patch(url: string): InjectRequest;
  delete(url: string): InjectRequest;
  head(url: string): InjectRequest;
  options(url: string): InjectRequest;
}

export function injectApi(app: FastifyInstance): Api {
  const start = (method: HTTPMethods) => (url: string) => new InjectRequest(app, method, url);
  return {
    get: start('GET'),
    post: start('POST'),
    put: start('PUT'),
    patch: start('PATCH'),
    delete: start('DELETE'),
    head: start('HEAD'),
    options: start('OPTIONS'),
  };
}
