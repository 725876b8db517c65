// fetch's Response and Headers over an answer node:http has read, for the bench's fetch adapter
// (http-client.ts). undici's own Response wraps every body in a web stream and copies every header
// through its checks, which cost the MCP SDK's client about a fifth of its CPU per call here.
import type { IncomingMessage } from 'node:http';

export const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** A fetch Response whose body was read whole from node:http: status, headers and the body's bytes. */
export class BufferedResponse implements Response {
  readonly type = 'basic';
  readonly redirected = false;
  readonly ok: boolean;
  #used = false;
  #stream: ReadableStream<Uint8Array<ArrayBuffer>> | null | undefined;

  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly headers: Headers,
    private readonly content: Buffer | null,
    readonly url: string,
  ) {
    this.ok = status >= 200 && status < 300;
  }

  // Built only when asked for: most answers are read with text() or json(), and a web stream per
  // response is what made undici's Response expensive here.
  get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    if (this.#stream === undefined)
      this.#stream = this.content ? new Blob([new Uint8Array(this.content)]).stream() : null;
    return this.#stream;
  }

  get bodyUsed(): boolean {
    return this.#used || (this.#stream?.locked ?? false);
  }

  #take(): Buffer {
    if (this.bodyUsed) throw new TypeError('Body is unusable: Body has already been read');
    this.#used = true;
    return this.content ?? Buffer.alloc(0);
  }

  async text(): Promise<string> {
    const text = this.#take().toString('utf8');
    // As fetch decodes: UTF-8, a leading byte order mark dropped.
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return new Uint8Array(this.#take());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return (await this.bytes()).buffer;
  }

  async blob(): Promise<Blob> {
    return new Blob([new Uint8Array(this.#take())], { type: this.headers.get('content-type') ?? '' });
  }

  async formData(): Promise<FormData> {
    return new Response(new Uint8Array(this.#take()), { headers: this.headers }).formData();
  }

  clone(): Response {
    if (this.bodyUsed) throw new TypeError('Response.clone: Body has already been consumed.');
    return new BufferedResponse(
      this.status,
      this.statusText,
      new Headers(this.headers),
      this.content,
      this.url,
    );
  }
}

/**
 * The answer's headers as fetch's Headers. node:http has parsed them already (headersDistinct: names
 * lowercased, every value kept), so get and has read that; the Headers list, with its checks of every
 * name and value, is built only when something else is asked for.
 */
export class AnswerHeaders extends Headers {
  #parsed: NodeJS.Dict<string[]> | undefined;
  readonly #raw: string[];

  constructor(res: IncomingMessage) {
    super();
    this.#parsed = res.headersDistinct;
    this.#raw = res.rawHeaders;
  }

  #list(): void {
    if (this.#parsed === undefined) return;
    this.#parsed = undefined;
    for (let i = 0; i < this.#raw.length; i += 2) super.append(this.#raw[i], this.#raw[i + 1]);
  }

  override get(name: string): string | null {
    if (this.#parsed === undefined) return super.get(name);
    return this.#parsed[name.toLowerCase()]?.join(', ') ?? null;
  }
  override has(name: string): boolean {
    if (this.#parsed === undefined) return super.has(name);
    return this.#parsed[name.toLowerCase()] !== undefined;
  }
  override append(name: string, value: string): void {
    this.#list();
    super.append(name, value);
  }
  override set(name: string, value: string): void {
    this.#list();
    super.set(name, value);
  }
  override delete(name: string): void {
    this.#list();
    super.delete(name);
  }
  override getSetCookie(): string[] {
    this.#list();
    return super.getSetCookie();
  }
  override forEach(
    callback: (value: string, name: string, parent: Headers) => void,
    thisArg?: unknown,
  ): void {
    this.#list();
    super.forEach(callback, thisArg);
  }
  override entries() {
    this.#list();
    return super.entries();
  }
  override keys() {
    this.#list();
    return super.keys();
  }
  override values() {
    this.#list();
    return super.values();
  }
  override [Symbol.iterator]() {
    this.#list();
    return super[Symbol.iterator]();
  }
}
