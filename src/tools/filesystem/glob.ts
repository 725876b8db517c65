// glob: find files by name pattern (picomatch, on the one workspace walker), newest first, respecting
// .gitignore (docs/search.md), never following symlinks: a symlinked directory is not entered and a
// symlink pointing outside the workspace is left out.
import { Type } from 'typebox';
import { toolgateError } from '../../lib/errors.js';
import { defineTool } from '../../contract/tool.js';
import { byName } from '../../search/order.js';

const Input = Type.Object(
  {
    pattern: Type.String({
      minLength: 1,
      maxLength: 1000,
      description:
        'Glob, e.g. "**/*.ts", "src/**/*.{ts,tsx}"; a pattern without "/" matches file names at any depth',
    }),
    path: Type.String({
      minLength: 1,
      default: '.',
      description: 'Directory to search, relative to the workspace root',
    }),
    limit: Type.Integer({ minimum: 1, maximum: 10_000, default: 100, description: 'Maximum files returned' }),
    offset: Type.Integer({
      minimum: 0,
      default: 0,
      description: 'Skip this many files (to continue after truncated)',
    }),
    include_ignored: Type.Boolean({ default: false, description: 'Also list files ignored by .gitignore' }),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  path: Type.String(),
  files: Type.Array(Type.String(), { description: 'Workspace-relative paths, newest first' }),
  total: Type.Integer({ description: 'Files matched in all' }),
  truncated: Type.Boolean(),
  nextOffset: Type.Optional(Type.Integer()),
});

export default defineTool({
  name: 'glob',
  category: 'filesystem',
  description:
    'Find files whose path matches a glob pattern, newest first. Respects .gitignore (unless ' +
    'include_ignored), skips .git, never follows symlinks. When truncated, call again with offset: nextOffset.',
  capabilities: { readsFiles: true, idempotent: true },
  input: Input,
  output: Output,
  examples: [{ pattern: '**/*.ts', path: 'src', limit: 100, offset: 0, include_ignored: false }],
  async execute(input, ctx) {
    // A leading "/" means the search directory, like paths elsewhere; "/" alone means every file.
    const pattern = input.pattern.replace(/^\/+/, '') || '**';
    if (pattern.split('/').includes('..')) {
      throw toolgateError('INVALID_PATH', 'A glob pattern may not contain ".." segments', {
        suggestion: 'Use the path argument to choose the directory, and a pattern relative to it.',
      });
    }
    // The walk, the match and the .gitignore policy run in the session runtime; ordering and paging here.
    const { relative, found } = (
      await ctx.workspace.call('glob', { path: input.path, pattern, includeIgnored: input.include_ignored })
    ).result;
    const dir = { relative };
    found.sort((a, b) => b.mtimeMs - a.mtimeMs || byName(a.path, b.path));
    // Bounded by the output cap as well as by limit: a page stops early rather than growing past it.
    const files: string[] = [];
    let bytes = 0;
    for (const { path: file } of found.slice(input.offset, input.offset + input.limit)) {
      bytes += Buffer.byteLength(file) + 4;
      if (bytes > ctx.limits.outputMaxBytes && files.length > 0) break;
      files.push(file);
    }
    const truncated = input.offset + files.length < found.length;
    return {
      path: dir.relative,
      files,
      total: found.length,
      truncated,
      ...(truncated ? { nextOffset: input.offset + files.length } : {}),
    };
  },
  render(data) {
    if (data.files.length === 0) return `No files match in ${data.path}.`;
    const tail = data.truncated
      ? `\n(${data.total} files in all; continue with offset ${data.nextOffset})`
      : '';
    return data.files.join('\n') + tail;
  },
});
