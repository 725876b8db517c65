// The client: `Toolgate` (the service, with the admin key) and `Session` (one workspace, with its
// token), on the global fetch. The same shape as the Python client (clients/python).
import { ApprovalPending, ToolgateError } from './errors.js';
import { batchBody, toAppend, withBuiltins } from './loop.js';
import { readEvents } from './sse.js';
import { ToolMethods, type BuiltinToolName, type BuiltinTools } from './tools.js';
import {
  DEFAULT_RETRY,
  Transport,
  decode,
  filePath,
  newIdempotencyKey,
  type RetryPolicy,
} from './transport.js';
import type { CallOptions, StreamEvent, ToolFormat, ToolResult } from './types.js';

type Json = Record<string, unknown>;

/** A session as POST/GET /v1/sessions describe it (the token only once, on creation). */
export interface SessionInfo extends Json {
  id: string;
  token?: string;
  profile: string;
  permissions: string[];
  categories: string[];
  createdAt: string;
  expiresAt: string | null;
}

export interface SessionOptions extends Json {
  profile?: string;
  /** Seed files: workspace-relative path → content. */
  files?: Record<string, string>;
  /** The runtime image (docker and kubernetes backends). */
  image?: string;
}

export interface ToolsOptions {
  /** The vendor's own tools that toolgate runs, by type (`apply_patch`, `shell`; `text_editor_20250728`, `bash_20250124`). */
  builtins?: string[];
  category?: string;
  strict?: boolean;
}

const segment = encodeURIComponent;

export class Session extends ToolMethods {
  private readonly base: string;

  constructor(
    private readonly transport: Transport,
    readonly id: string,
    readonly token: string,
    public info?: SessionInfo,
  ) {
    super();
    this.base = `/v1/sessions/${segment(id)}`;
  }

  /** Runs a tool (POST /v1/sessions/{id}/tools/{name}): its envelope, or throws ToolgateError. */
  async call<Data = unknown>(
    name: string,
    input: object = {},
    options: CallOptions = {},
  ): Promise<ToolResult<Data>> {
    return this.transport.json<ToolResult<Data>>({
      method: 'POST',
      path: `${this.base}/tools/${segment(name)}`,
      token: this.token,
      json: input,
      headers: { 'idempotency-key': options.idempotencyKey ?? newIdempotencyKey() },
      signal: options.signal,
    });
  }

  protected async tool<N extends BuiltinToolName>(
    name: N,
    input: BuiltinTools[N]['input'],
    options?: CallOptions,
  ): Promise<BuiltinTools[N]['data']> {
    return (await this.call<BuiltinTools[N]['data']>(name, input ?? {}, options)).data;
  }

  /**
   * Runs a tool with its output streamed (SSE): `start`, `output` events as the command writes, then
   * `end` with the envelope. A failed call throws ToolgateError after its output.
   */
  async *stream(name: string, input: object = {}, options: CallOptions = {}): AsyncGenerator<StreamEvent> {
    const response = await this.transport.send({
      method: 'POST',
      path: `${this.base}/tools/${segment(name)}`,
      token: this.token,
      json: input,
      headers: {
        accept: 'text/event-stream',
        'idempotency-key': options.idempotencyKey ?? newIdempotencyKey(),
      },
      signal: options.signal,
    });
    if (!(response.headers.get('content-type') ?? '').includes('text/event-stream') || !response.body) {
      await decode(response);
      throw new ToolgateError({ code: 'UNEXPECTED_RESPONSE', message: 'The service did not stream' });
    }
    for await (const event of readEvents(response.body)) {
      if (event.event === 'end') {
        const envelope = event.data as { success?: boolean; pending?: boolean; status?: number };
        if (envelope.pending) throw new ApprovalPending(event.data as Json);
        if (envelope.success !== true) throw ToolgateError.fromEnvelope(envelope, envelope.status);
      }
      yield event;
    }
  }

  /** POST /v1/sessions/{id}/calls: a list of `{name, arguments}` calls, or a body in a vendor's format. */
  async batch<T = Json>(body: object | { name: string; arguments?: object; id?: string }[]): Promise<T> {
    const json = Array.isArray(body) ? { calls: body } : body;
    return this.transport.json<T>({ method: 'POST', path: `${this.base}/calls`, token: this.token, json });
  }

  /** The declarations of the tools this session may call, in a vendor's format (the request's `tools`). */
  async tools(format: ToolFormat = 'openai', options: ToolsOptions = {}): Promise<Json[]> {
    const listing = await this.transport.json<{
      tools: Json[];
      builtins?: { tool: Json; mapsTo?: string[] }[];
    }>({
      method: 'GET',
      path: '/v1/tools',
      token: this.token,
      query: { format, category: options.category, strict: options.strict },
    });
    return withBuiltins(listing, options.builtins ?? []);
  }

  /**
   * Runs the tool calls of a model's output through the batch endpoint; resolves to what to append to the
   * conversation after the model's turn (empty when it made no tool call: the loop is done). `tools`: the
   * Anthropic request's tools list, whose text editor's max_characters cuts its views.
   */
  async handle(modelOutput: unknown, options: { tools?: unknown[] } = {}): Promise<Json[]> {
    const [format, body] = batchBody(modelOutput);
    if (!body) return [];
    // The Anthropic request's tools list: its text editor's max_characters cuts the editor's views.
    const sent = options.tools && format === 'anthropic' ? { ...body, tools: options.tools } : body;
    return toAppend(format, await this.batch<Json>(sent));
  }

  /** Writes a file byte for byte (PUT /files/{path}); `expectedSha256` makes it a compare-and-swap. */
  async upload(path: string, content: Uint8Array | string, options: { expectedSha256?: string } = {}) {
    return this.transport.json<{ path: string; size: number; sha256: string; created: boolean }>({
      method: 'PUT',
      path: `${this.base}/files/${filePath(path)}`,
      token: this.token,
      body: content,
      headers: {
        'content-type': 'application/octet-stream',
        ...(options.expectedSha256 !== undefined ? { 'expected-sha256': options.expectedSha256 } : {}),
      },
    });
  }

  /** A file's bytes (GET /files/{path}). */
  async download(path: string): Promise<Uint8Array> {
    return this.transport.bytes({
      method: 'GET',
      path: `${this.base}/files/${filePath(path)}`,
      token: this.token,
    });
  }

  /** Extracts a tar, tar.gz or zip into a directory of the workspace. */
  async uploadArchive(archive: Uint8Array, options: { path?: string } = {}) {
    return this.transport.json<Json>({
      method: 'POST',
      path: `${this.base}/archive`,
      token: this.token,
      body: archive,
      query: { path: options.path ?? '.' },
      headers: { 'content-type': 'application/octet-stream' },
    });
  }

  /** A directory of the workspace as a tar.gz or zip. */
  async downloadArchive(options: { path?: string; format?: 'tar.gz' | 'zip'; gitignore?: boolean } = {}) {
    return this.transport.bytes({
      method: 'GET',
      path: `${this.base}/archive`,
      token: this.token,
      query: {
        path: options.path ?? '.',
        format: options.format ?? 'tar.gz',
        gitignore: options.gitignore ?? false,
      },
    });
  }

  async createCheckpoint(name?: string): Promise<Json & { id: string }> {
    const json = name ? { name } : {};
    return this.transport.json({ method: 'POST', path: `${this.base}/checkpoints`, token: this.token, json });
  }

  async listCheckpoints(): Promise<{ checkpoints: (Json & { id: string })[] }> {
    return this.transport.json({ method: 'GET', path: `${this.base}/checkpoints`, token: this.token });
  }

  async restoreCheckpoint(checkpoint: string): Promise<Json> {
    const path = `${this.base}/checkpoints/${segment(checkpoint)}/restore`;
    return this.transport.json({ method: 'POST', path, token: this.token });
  }

  async deleteCheckpoint(checkpoint: string): Promise<void> {
    const path = `${this.base}/checkpoints/${segment(checkpoint)}`;
    await this.transport.json({ method: 'DELETE', path, token: this.token });
  }

  /** Deletes the session and its workspace (a session already gone is not an error). */
  async close(): Promise<void> {
    try {
      await this.transport.json({ method: 'DELETE', path: this.base, token: this.token });
    } catch (err) {
      if (!(err instanceof ToolgateError) || (err.status !== 401 && err.status !== 404)) throw err;
    }
  }
}

export interface ToolgateOptions {
  /** Default: TOOLGATE_URL, else http://127.0.0.1:8080. */
  url?: string;
  /** The admin key. Default: TOOLGATE_API_KEY. */
  apiKey?: string;
  retry?: Partial<RetryPolicy>;
  fetch?: typeof fetch;
}

const env = (name: string): string | undefined =>
  (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env[name];

export class Toolgate {
  private readonly transport: Transport;
  readonly apiKey?: string;

  constructor(options: ToolgateOptions = {}) {
    this.apiKey = options.apiKey ?? env('TOOLGATE_API_KEY');
    this.transport = new Transport(
      options.url ?? env('TOOLGATE_URL') ?? 'http://127.0.0.1:8080',
      { ...DEFAULT_RETRY, ...options.retry },
      options.fetch ?? fetch,
    );
  }

  get url(): string {
    return this.transport.url;
  }

  /** Creates a session (POST /v1/sessions; other settings by their API names: ttlSeconds, network, …). */
  async session(options: SessionOptions = {}): Promise<Session> {
    const json = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
    const created = await this.transport.json<SessionInfo & { token: string }>({
      method: 'POST',
      path: '/v1/sessions',
      token: this.apiKey,
      json,
    });
    return new Session(this.transport, created.id, created.token, created);
  }

  /** Runs `work` with a new session and deletes the session afterwards, whatever happens. */
  async withSession<T>(options: SessionOptions, work: (session: Session) => Promise<T>): Promise<T> {
    const session = await this.session(options);
    try {
      return await work(session);
    } finally {
      await session.close();
    }
  }

  /** A session created elsewhere, by its id and token. */
  attach(id: string, token: string): Session {
    return new Session(this.transport, id, token);
  }
}
