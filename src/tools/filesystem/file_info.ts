// file_info: what a path is (type, size, times, mode), and for files: line count, binary or text, media
// type, BOM and line endings, and the SHA-256 write tools accept as expected_sha256. Streams the file once.
import { createReadStream, promises as fs } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { Type } from 'typebox';
import { fromFsError } from '../../core/errors.js';
import { defineTool } from '../../core/tool.js';
import { mimeType } from '../shared/mime.js';
import { looksBinary } from '../shared/text.js';

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

interface Scan {
  sha256: string;
  binary: boolean;
  newlines: number;
  crlf: number;
  endsWithNewline: boolean;
  bom: boolean;
}

async function scanFile(absolute: string, signal: AbortSignal): Promise<Scan> {
  const hash = createHash('sha256');
  const scan = { binary: false, newlines: 0, crlf: 0, endsWithNewline: false, bom: false };
  let previous = -1;
  let first = true;
  for await (const raw of createReadStream(absolute, { highWaterMark: 1024 * 1024, signal })) {
    const chunk = raw as Buffer;
    hash.update(chunk);
    if (first) {
      scan.binary = looksBinary(chunk);
      scan.bom = chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf;
      first = false;
    }
    if (scan.binary) continue;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) {
      scan.newlines++;
      if ((at > 0 ? chunk[at - 1] : previous) === 13) scan.crlf++;
    }
    if (chunk.length) {
      previous = chunk[chunk.length - 1];
      scan.endsWithNewline = previous === 10;
    }
  }
  return { ...scan, sha256: hash.digest('hex') };
}

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
    const target = await ctx.workspace.resolve(input.path, { followFinalSymlink: false });
    const stat = await fs.lstat(target.absolute).catch((err) => {
      throw fromFsError(err, target.relative);
    });
    const base = {
      path: target.relative,
      size: stat.size,
      modifiedAt: stat.mtime.toISOString(),
      mode: (stat.mode & 0o7777).toString(8).padStart(4, '0'),
      lines: null,
      binary: false,
      mime: null,
      sha256: null,
      bom: false,
      lineEndings: 'none' as const,
    };
    if (stat.isSymbolicLink()) {
      const real = await fs.realpath(target.absolute).catch(() => undefined);
      const linkTarget = real && ctx.workspace.contains(real) ? ctx.workspace.toRelative(real) : null;
      return { ...base, type: 'symlink' as const, linkTarget };
    }
    if (stat.isDirectory()) return { ...base, type: 'directory' as const, size: 0 };
    if (!stat.isFile()) return { ...base, type: 'other' as const };
    const scan = await scanFile(target.absolute, ctx.signal);
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
      mime: mimeType(path.basename(target.absolute), scan.binary),
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
