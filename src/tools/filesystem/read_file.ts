// read_file: a window of a text file's lines (1-based offset, default 2000 lines), long lines cut and
// marked, binary files refused, with the file's SHA-256 for compare-and-swap. The bytes come from the
// session runtime (the service never opens a workspace file).
import { StringDecoder } from 'node:string_decoder';
import { Type } from 'typebox';
import { toolgateError } from '../../lib/errors.js';
import { defineTool } from '../../contract/tool.js';
import { LineWindow } from '../../lib/line-window.js';
import { looksBinary, UTF8_BOM } from '../../lib/text.js';

const Input = Type.Object(
  {
    path: Type.String({ minLength: 1, description: 'File path, relative to the workspace root' }),
    offset: Type.Integer({ minimum: 1, default: 1, description: 'First line to return (1-based)' }),
    limit: Type.Integer({
      minimum: 1,
      maximum: 100_000,
      default: 2000,
      description: 'Maximum number of lines',
    }),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  path: Type.String(),
  content: Type.String({ description: 'The lines, joined with \\n (a UTF-8 BOM is not included)' }),
  startLine: Type.Integer(),
  endLine: Type.Integer({ description: 'Last line returned; startLine - 1 when none' }),
  totalLines: Type.Integer(),
  truncated: Type.Boolean({ description: 'True when the file has lines after endLine' }),
  nextOffset: Type.Optional(Type.Integer({ description: 'Offset to continue from when truncated' })),
  linesCut: Type.Integer({ description: 'Lines longer than 2000 characters, cut and marked' }),
  size: Type.Integer(),
  sha256: Type.String({ description: "Hash of the whole file; pass it as write tools' expected_sha256" }),
});

export default defineTool({
  name: 'read_file',
  category: 'filesystem',
  description:
    'Read a text file from the workspace. Returns up to `limit` lines starting at line `offset` (1-based), ' +
    'with the total line count; when `truncated` is true, call again with `offset: nextOffset`. ' +
    'Lines longer than 2000 characters are cut and marked. Binary files are refused (use file_info).',
  capabilities: { readsFiles: true, idempotent: true },
  input: Input,
  output: Output,
  examples: [{ path: 'src/index.ts', offset: 1, limit: 2000 }],
  async execute(input, ctx) {
    // One runtime operation: it resolves the path, refuses directories, FIFOs and devices on the open
    // descriptor, enforces the size cap, and hands back the bytes with their hash.
    const file = await ctx.workspace.readFile(input.path, ctx.limits.readMaxBytes);
    const window = new LineWindow(input.offset, input.limit, ctx.limits.outputMaxBytes);
    if (looksBinary(file.bytes)) {
      throw toolgateError('BINARY_FILE', `${file.relative} is a binary file`, {
        suggestion: 'Use file_info to see its type and size.',
      });
    }
    const decoder = new StringDecoder('utf8');
    let text = decoder.write(file.bytes) + decoder.end();
    if (text.startsWith(UTF8_BOM)) text = text.slice(1);
    window.pushWhole(text);
    const { totalLines } = window;
    if (input.offset > totalLines && totalLines > 0) {
      throw toolgateError(
        'OFFSET_OUT_OF_RANGE',
        `offset ${input.offset} is past the end of ${file.relative} (${totalLines} lines)`,
        {
          suggestion: `Use an offset from 1 to ${totalLines}.`,
        },
      );
    }
    const digest = file.sha256;
    // What the session has now seen: edits and overwrites are checked against it (read-before-write).
    await ctx.services.fileReads.record(ctx.session.id, file.relative, {
      sha256: digest,
      mtimeMs: file.stat.mtimeMs,
      size: file.stat.size,
    });
    const endLine = input.offset + window.lineCount - 1;
    const truncated = endLine < totalLines;
    return {
      path: file.relative,
      content: window.content,
      startLine: input.offset,
      endLine,
      totalLines,
      truncated,
      ...(truncated ? { nextOffset: endLine + 1 } : {}),
      linesCut: window.linesCut,
      size: file.stat.size,
      sha256: digest,
    };
  },
  render(data) {
    const lines = data.content === '' && data.totalLines === 0 ? [] : data.content.split('\n');
    const width = String(data.endLine).length;
    const body = lines.map((line, i) => `${String(data.startLine + i).padStart(width)}\t${line}`).join('\n');
    const tail = data.truncated
      ? `\n(showing lines ${data.startLine}-${data.endLine} of ${data.totalLines}; continue with offset ${data.nextOffset})`
      : '';
    return data.totalLines === 0 ? `(${data.path} is empty)` : body + tail;
  },
});
