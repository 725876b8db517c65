// file_info: what a path is (type, size, times, mode), and for files: line count, binary or text, media
// type, BOM and line endings, and the SHA-256 write tools accept as expected_sha256. Streams the file once.
import path from 'node:path';
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { mimeType } from '../../lib/mime.js';

const Input = Type.Object(
  { path: Type.String({ minLength: 1, description: 'File or directory, relative to the workspace root' }) },
  { additionalProperties: false },
);

const Output = Type.Object({
  path: Type.String(),
  type: Type.Enum(['file', 'directory', 'symlink', 'other']),
  size: Type.Integer(),
  modifiedAt: Type.String({ description: 'ISO 8601' }),
  mode: Type.String({ description: 'Permission bits, octal' }),
  lines: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Line count of a text file; null otherwise',
  }),
  binary: Type.Boolean(),
  mime: Type.Union([Type.String(), Type.Null()]),
  sha256: Type.Union([Type.String(), Type.Null()], { description: "Of a file's bytes; null otherwise" }),
  bom: Type.Boolean(),
  lineEndings: Type.Enum(['lf', 'crlf', 'mixed', 'none']),
  linkTarget: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: 'For a symlink: its workspace-relative target, null when outside',
    }),
  ),
});

export default defineTool({
  name: 'file_info',
  category: 'filesystem',
  description:
    'Metadata of a file or directory: type, size, modification time, mode; for files also line count, ' +
    'binary or text, media type, BOM, line endings, and the SHA-256 to pass as expected_sha256 to write ' +
    'tools. Symlinks are described, not followed.',
  capabilities: { readsFiles: true, idempotent: true },
  input: Input,
  output: Output,
  examples: [{ path: 'package.json' }],
  async execute(input, ctx) {
    // lstat and, for a regular file, one pass over its bytes, in the session runtime. A FIFO, socket or
    // device is described (type "other") and never opened.
    const info = (await ctx.workspace.call('fileInfo', { path: input.path })).result;
    const base = {
      path: info.relative,
      size: info.size,
      modifiedAt: new Date(info.mtimeMs).toISOString(),
      mode: info.mode.toString(8).padStart(4, '0'),
      lines: null,
      binary: false,
      mime: null,
      sha256: null,
      bom: false,
      lineEndings: 'none' as const,
    };
    if (info.type === 'symlink')
      return { ...base, type: 'symlink' as const, linkTarget: info.linkTarget ?? null };
    if (info.type === 'directory') return { ...base, type: 'directory' as const, size: 0 };
    if (info.type !== 'file' || !info.scan) return { ...base, type: 'other' as const };
    const { scan } = info;
    const stat = { size: info.size };
    const lines = scan.binary
      ? null
      : scan.newlines + (stat.size > (scan.bom ? 3 : 0) && !scan.endsWithNewline ? 1 : 0);
    const lineEndings: 'none' | 'lf' | 'crlf' | 'mixed' =
      scan.binary || scan.newlines === 0
        ? 'none'
        : scan.crlf === 0
          ? 'lf'
          : scan.crlf === scan.newlines
            ? 'crlf'
            : 'mixed';
    return {
      ...base,
      type: 'file' as const,
      lines,
      binary: scan.binary,
      mime: mimeType(path.posix.basename(info.relative), scan.binary),
      sha256: scan.sha256,
      bom: scan.bom,
      lineEndings,
    };
  },
  render(data) {
    if (data.type !== 'file') {
      const link = data.type === 'symlink' ? ` -> ${data.linkTarget ?? '(outside the workspace)'}` : '';
      return `${data.path}: ${data.type}${link}, modified ${data.modifiedAt}`;
    }
    const content = data.binary
      ? 'binary'
      : `${data.lines} lines, ${data.lineEndings.toUpperCase()}${data.bom ? ', BOM' : ''}`;
    return `${data.path}: file, ${data.size} bytes, ${content}, ${data.mime}, modified ${data.modifiedAt}, mode ${data.mode}, sha256 ${data.sha256}`;
  },
});
