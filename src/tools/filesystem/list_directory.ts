// list_directory: entries under a directory to a given depth, skipping the usual heavy folders
// (node_modules, .git, build output, caches, virtualenvs) and caller-given ignore globs.
import { promises as fs, type Dirent } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { Type } from 'typebox';
import { fromFsError, toolgateError } from '../../core/errors.js';
import { defineTool } from '../../core/tool.js';

export const DEFAULT_IGNORED_DIRS = [
  'node_modules',
  '.git',
  '.hg',
  '.svn',
  'dist',
  'build',
  'coverage',
  '.cache',
  '.next',
  '.nuxt',
  '.turbo',
  '__pycache__',
  '.pytest_cache',
  '.mypy_cache',
  '.venv',
  'venv',
  '.tox',
  'target',
  '.gradle',
  '.idea',
];

const Input = Type.Object(
  {
    path: Type.String({
      minLength: 1,
      default: '.',
      description: 'Directory, relative to the workspace root',
    }),
    depth: Type.Integer({ minimum: 1, maximum: 20, default: 1, description: 'How many levels to descend' }),
    ignore: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      maxItems: 100,
      description: 'Extra glob patterns to skip (matched against the workspace-relative path and the name)',
    }),
    include_default_ignored: Type.Boolean({
      default: false,
      description: 'Also descend into node_modules, .git, build output and caches',
    }),
  },
  { additionalProperties: false },
);

const Entry = Type.Object({
  path: Type.String(),
  type: Type.Enum(['file', 'directory', 'symlink', 'other']),
  size: Type.Integer({ description: 'Bytes, for files; 0 otherwise' }),
});

const Output = Type.Object({
  path: Type.String(),
  entries: Type.Array(Entry),
  truncated: Type.Boolean(),
  /** Directories listed by name only because they are ignored by default. */
  skipped: Type.Array(Type.String()),
});

type EntryData = { path: string; type: 'file' | 'directory' | 'symlink' | 'other'; size: number };

function comparePaths(a: string, b: string): number {
  const left = a.split('/');
  const right = b.split('/');
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    if (left[i] !== right[i]) return left[i] < right[i] ? -1 : 1;
  }
  return left.length - right.length;
}

const typeOf = (entry: Dirent): EntryData['type'] =>
  entry.isSymbolicLink() ? 'symlink' : entry.isDirectory() ? 'directory' : entry.isFile() ? 'file' : 'other';

export default defineTool({
  name: 'list_directory',
  category: 'filesystem',
  description:
    'List files and directories under a path, to `depth` levels. Heavy folders (node_modules, .git, build ' +
    'output, caches, virtualenvs) are shown but not entered unless include_default_ignored is true. At most ' +
    'the configured number of entries (breadth-first) is returned; `truncated` says when more exist. ' +
    'Symlinks are listed, never followed.',
  capabilities: { readsFiles: true, idempotent: true },
  input: Input,
  output: Output,
  examples: [{ path: '.', depth: 2, ignore: [], include_default_ignored: false }],
  async execute(input, ctx) {
    const root = await ctx.workspace.resolve(input.path);
    const stat = await fs.stat(root.absolute).catch((err) => {
      throw fromFsError(err, root.relative);
    });
    if (!stat.isDirectory()) {
      throw toolgateError('NOT_A_DIRECTORY', `${root.relative} is not a directory`, {
        suggestion: 'Use read_file.',
      });
    }
    const ignored = input.ignore.length ? picomatch(input.ignore, { dot: true }) : () => false;
    const heavy = new Set(input.include_default_ignored ? [] : DEFAULT_IGNORED_DIRS);
    const max = ctx.limits.maxEntries;
    const entries: EntryData[] = [];
    const skipped: string[] = [];
    let truncated = false;
    // Breadth-first so a cap keeps the top of the tree rather than one deep branch.
    let level: string[] = [root.absolute];
    for (let depth = 1; depth <= input.depth && level.length && !truncated; depth++) {
      const nextLevel: string[] = [];
      for (const dir of level) {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        const children = await fs.readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[]);
        children.sort((a, b) => a.name.localeCompare(b.name));
        for (const child of children) {
          const full = path.join(dir, child.name);
          const relative = ctx.workspace.toRelative(full);
          if (ignored(relative) || ignored(child.name)) continue;
          if (entries.length >= max) {
            truncated = true;
            break;
          }
          const type = typeOf(child);
          const size = type === 'file' ? (await fs.lstat(full).catch(() => ({ size: 0 }))).size : 0;
          entries.push({ path: relative, type, size });
          if (type === 'directory') {
            if (heavy.has(child.name)) skipped.push(relative);
            else nextLevel.push(full);
          }
        }
        if (truncated) break;
      }
      level = nextLevel;
    }
    // Segment by segment, so a directory's children follow it directly (the tree render relies on it).
    entries.sort((a, b) => comparePaths(a.path, b.path));
    return { path: root.relative, entries, truncated, skipped };
  },
  render(data) {
    const base = data.path === '.' ? '' : `${data.path}/`;
    const lines = [`${data.path}/`];
    for (const entry of data.entries) {
      const rel = entry.path.startsWith(base) ? entry.path.slice(base.length) : entry.path;
      const depth = rel.split('/').length - 1;
      const name = rel.split('/').pop();
      const notEntered = data.skipped.includes(entry.path) ? ' (not listed)' : '';
      const suffix = entry.type === 'directory' ? `/${notEntered}` : entry.type === 'symlink' ? ' ->' : '';
      const size = entry.type === 'file' ? ` (${entry.size} B)` : '';
      lines.push(`${'  '.repeat(depth + 1)}${name}${suffix}${size}`);
    }
    if (data.truncated) {
      lines.push(
        `(truncated after ${data.entries.length} entries: list a subdirectory, lower depth or add ignore globs)`,
      );
    }
    return lines.join('\n');
  },
});
