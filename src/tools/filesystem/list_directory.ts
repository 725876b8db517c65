// list_directory: entries under a directory to a given depth, skipping the usual heavy folders
// (node_modules, .git, build output, caches, virtualenvs) and caller-given ignore globs.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { DEFAULT_IGNORED_DIRS } from '../../search/ignored-dirs.js';
import { comparePaths } from '../../search/order.js';

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
    // The walk runs in the session runtime, in one operation.
    const listing = (
      await ctx.workspace.call('listDirectory', {
        path: input.path,
        depth: input.depth,
        ignore: input.ignore,
        heavy: input.include_default_ignored ? [] : [...DEFAULT_IGNORED_DIRS],
        max: ctx.limits.maxEntries,
      })
    ).result;
    const { entries, truncated, skipped } = listing;
    const root = { relative: listing.relative };
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
