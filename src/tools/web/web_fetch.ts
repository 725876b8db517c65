// web_fetch: GET a URL under the session's network policy (network/fetch.ts: every hop decided, audited
// and counted against the egress quota) and give the model something it can read: an HTML page as
// Markdown (its article, via Readability), text and JSON as they are. Binary content is refused unless
// `save_as` names a workspace file to write it to (through the runtime, as write_file does).
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { commitWrites } from '../../edit/file-commit.js';
import { lockKey } from '../../edit/file-guard.js';
import { toolgateError } from '../../lib/errors.js';
import { fetchUrl } from '../../network/fetch.js';
import { readableInWorker } from '../../network/html-job.js';
import { readableBody } from '../../network/content.js';

const MAX_TIMEOUT_MS = 120_000;
const MAX_BYTES = 20 * 1024 * 1024;

const Input = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 4000, description: 'The http:// or https:// URL to GET' }),
    format: Type.Union([Type.Literal('markdown'), Type.Literal('text'), Type.Literal('html')], {
      default: 'markdown',
      description:
        'How an HTML page is returned: its main content as Markdown (default), plain text, or raw HTML',
    }),
    max_bytes: Type.Integer({
      minimum: 1024,
      maximum: MAX_BYTES,
      default: 5 * 1024 * 1024,
      description: 'Download at most this many bytes; longer bodies are cut (and marked truncated)',
    }),
    timeout_ms: Type.Integer({
      minimum: 100,
      maximum: MAX_TIMEOUT_MS,
      default: 30_000,
      description: 'Give up after this long, redirects included',
    }),
    save_as: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'Write the body to this workspace file instead of returning it (needed for binary content)',
      }),
    ),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  url: Type.String({ description: 'The final URL, after redirects' }),
  status: Type.Integer({ description: "The server's HTTP status" }),
  contentType: Type.String(),
  format: Type.Union([
    Type.Literal('markdown'),
    Type.Literal('text'),
    Type.Literal('html'),
    Type.Literal('json'),
    Type.Literal('saved'),
  ]),
  title: Type.Optional(Type.String()),
  content: Type.String({ description: 'The readable body (empty when saved)' }),
  bytes: Type.Integer({ description: 'Bytes downloaded' }),
  truncated: Type.Boolean({ description: 'The body or the returned content was cut at a limit' }),
  redirects: Type.Array(Type.String(), { description: 'URLs that redirected, in order' }),
  savedTo: Type.Optional(Type.String({ description: 'The workspace file written (save_as)' })),
});

export default defineTool({
  name: 'web_fetch',
  category: 'web',
  description:
    "GET a URL through the session's egress policy and return it readable: an HTML page as Markdown " +
    "(its main content; format 'text' or 'html' for the others), text and JSON as they are. Redirects are " +
    'followed, each hop checked against the policy; private, loopback and link-local addresses are never ' +
    'reached (403 EGRESS_DENIED names the rule). Binary content needs save_as (a workspace path). Bodies ' +
    'over max_bytes are cut and marked truncated.',
  capabilities: { network: true, readsFiles: true, writesFiles: true, idempotent: true, destructive: true },
  input: Input,
  output: Output,
  examples: [
    { url: 'https://example.org/', format: 'markdown', max_bytes: 5 * 1024 * 1024, timeout_ms: 30_000 },
  ],
  async execute(input, ctx) {
    // timeout_ms bounds the whole call: the download, and then the page's conversion with what is left.
    const deadline = performance.now() + input.timeout_ms;
    const fetched = await fetchUrl(ctx.services.egress, {
      sessionId: ctx.session.id,
      policy: ctx.session.network,
      url: input.url,
      maxBytes:
        input.save_as !== undefined
          ? Math.min(input.max_bytes, ctx.limits.writeMaxBytes) + 1
          : input.max_bytes,
      timeoutMs: input.timeout_ms,
      maxRedirects: 10,
      signal: ctx.signal,
    });
    const common = {
      url: fetched.url,
      status: fetched.status,
      contentType: fetched.contentType,
      bytes: fetched.body.length,
      redirects: [...fetched.redirects],
    };
    if (input.save_as !== undefined) {
      if (fetched.truncated || fetched.body.length > ctx.limits.writeMaxBytes) {
        throw toolgateError('FILE_TOO_LARGE', `The body is larger than ${ctx.limits.writeMaxBytes} bytes`);
      }
      const target = await ctx.workspace.resolve(input.save_as);
      if (target.relative === '.') throw toolgateError('NOT_A_FILE', 'Cannot write to the workspace root');
      await ctx.services.fileLocks.run([lockKey(ctx, target.relative)], () =>
        commitWrites(ctx, 'web_fetch', [{ relative: target.relative, bytes: fetched.body }]),
      );
      return { ...common, format: 'saved' as const, content: '', truncated: false, savedTo: target.relative };
    }
    const body = readableBody(fetched.contentType, fetched.body);
    if (body.kind === 'binary') {
      throw toolgateError(
        'BINARY_FILE',
        `${fetched.url} is ${fetched.contentType || 'binary content'}, not text`,
        {
          suggestion: 'Pass save_as to write it into the workspace.',
        },
      );
    }
    let content = body.text;
    let title: string | undefined;
    let format: 'markdown' | 'text' | 'html' | 'json' = body.kind === 'json' ? 'json' : 'text';
    if (body.kind === 'html' && input.format !== 'html') {
      const readable = await readableInWorker(
        ctx.services.cpu,
        { html: body.text, url: fetched.url, as: input.format },
        { owner: ctx.session.id, signal: ctx.signal, deadlineMs: deadline - performance.now() },
      );
      title = readable.title;
      content = readable.content;
      format = input.format;
    } else if (body.kind === 'html') format = 'html';
    const cap = ctx.limits.outputMaxBytes;
    const cut = Buffer.byteLength(content) > cap;
    if (cut)
      content = Buffer.from(content)
        .subarray(0, cap)
        .toString('utf8')
        .replace(/\uFFFD$/, '');
    return {
      ...common,
      format,
      ...(title !== undefined ? { title } : {}),
      content,
      truncated: fetched.truncated || cut,
    };
  },
  render: (data) => {
    const head = `${data.title ? `# ${data.title}\n` : ''}${data.url} — HTTP ${data.status}, ${data.contentType || 'no content type'}${data.truncated ? ' (truncated)' : ''}`;
    if (data.savedTo !== undefined) return `${head}\nSaved ${data.bytes} bytes to ${data.savedTo}`;
    return `${head}\n\n${data.content}`;
  },
});
