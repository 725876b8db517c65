// grep: search file contents with ripgrep (or the equivalent JavaScript engine when rg is missing).
// Results are sorted by path and line so both engines, and repeated calls, give the same answer.
import { Type, type Static } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import type { ToolContext } from '../../contract/context.js';
import type { GrepCount, GrepHit } from '../../runtime/ops/walk.js';
import { cutLine } from '../../lib/text.js';
import { byName, byPathThenLine } from '../../search/order.js';

const Input = Type.Object(
  {
    pattern: Type.String({
      minLength: 1,
      description: 'Regular expression (Rust/ripgrep syntax), or literal text with fixed_strings',
    }),
    path: Type.String({
      minLength: 1,
      default: '.',
      description: 'File or directory to search, relative to the workspace root',
    }),
    glob: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Only files matching this glob, e.g. "*.ts" or "src/**/*.{ts,tsx}"; "!dist" excludes',
      }),
    ),
    case_insensitive: Type.Boolean({ default: false }),
    fixed_strings: Type.Boolean({ default: false, description: 'Treat pattern as literal text' }),
    multiline: Type.Boolean({
      default: false,
      description: 'Let matches span lines ("." matches newlines too)',
    }),
    context: Type.Integer({
      minimum: 0,
      maximum: 20,
      default: 0,
      description: 'Lines of context before and after each match',
    }),
    output_mode: Type.Enum(['content', 'files_with_matches', 'count'], {
      default: 'content',
      description: 'content: matching lines; files_with_matches: file paths; count: matches per file',
    }),
    limit: Type.Integer({
      minimum: 1,
      maximum: 5000,
      default: 100,
      description: 'Maximum matches (content) or files',
    }),
    offset: Type.Integer({
      minimum: 0,
      default: 0,
      description: 'Skip this many results (to continue after truncated)',
    }),
    engine: Type.Enum(['auto', 'ripgrep', 'javascript'], {
      default: 'auto',
      description: 'Leave at auto (ripgrep when installed); the engines give the same results',
    }),
  },
  { additionalProperties: false },
);

const Match = Type.Object({
  path: Type.String(),
  line: Type.Integer(),
  text: Type.String(),
  context: Type.Optional(Type.Boolean({ description: 'True for a context line, absent for a match' })),
});

const Output = Type.Object({
  mode: Type.Enum(['content', 'files_with_matches', 'count']),
  matches: Type.Optional(Type.Array(Match)),
  files: Type.Optional(Type.Array(Type.String())),
  counts: Type.Optional(Type.Array(Type.Object({ path: Type.String(), count: Type.Integer() }))),
  totalMatches: Type.Integer({ description: 'Matches found (complete unless incomplete is true)' }),
  truncated: Type.Boolean(),
  nextOffset: Type.Optional(Type.Integer({ description: 'offset for the next page when truncated' })),
  incomplete: Type.Boolean({
    description: 'The search stopped early: there were too many matches to count them all',
  }),
  engine: Type.Enum(['ripgrep', 'javascript']),
});

type Data = Static<typeof Output>;

function page<T>(items: T[], offset: number, limit: number, sizeOf: (item: T) => number, maxBytes: number) {
  const out: T[] = [];
  let bytes = 0;
  for (const item of items.slice(offset, offset + limit)) {
    bytes += sizeOf(item);
    if (bytes > maxBytes && out.length > 0) break;
    out.push(item);
  }
  return { out, more: offset + out.length < items.length };
}

/** What every output mode reports besides its page. */
const summary = (
  input: Static<typeof Input>,
  totalMatches: number,
  capped: boolean,
  engine: Data['engine'],
) => ({
  mode: input.output_mode,
  totalMatches,
  incomplete: capped,
  engine,
});

/** truncated and nextOffset for a page of `shown` items. */
const paging = (input: Static<typeof Input>, capped: boolean, more: boolean, shown: number) => ({
  truncated: more || capped,
  ...(more ? { nextOffset: input.offset + shown } : {}),
});

/** files_with_matches and count, from matching lines per file. */
function countsData(
  input: Static<typeof Input>,
  ctx: ToolContext,
  counts: readonly GrepCount[],
  capped: boolean,
  engine: Data['engine'],
): Data {
  // Sorted by path like the hits of content mode, so every mode lists files in the same order.
  const all = [...counts].sort((a, b) => byName(a.path, b.path));
  const base = summary(
    input,
    all.reduce((sum, entry) => sum + entry.count, 0),
    capped,
    engine,
  );
  const maxBytes = ctx.limits.outputMaxBytes;
  if (input.output_mode === 'files_with_matches') {
    const files = all.map((entry) => entry.path);
    const { out, more } = page(files, input.offset, input.limit, (f) => f.length + 4, maxBytes);
    return { ...base, files: out, ...paging(input, capped, more, out.length) };
  }
  const { out, more } = page(all, input.offset, input.limit, (c) => c.path.length + 16, maxBytes);
  return { ...base, counts: out, ...paging(input, capped, more, out.length) };
}

export default defineTool({
  name: 'grep',
  category: 'filesystem',
  description:
    'Search file contents in the workspace with a regular expression (ripgrep syntax) or fixed string. ' +
    'Respects .gitignore, skips binary files and .git, never follows symlinks. Output modes: content ' +
    '(`path:line: text`, with optional context lines), files_with_matches, count. Results are sorted by ' +
    'path and line; when truncated, call again with offset: nextOffset. Long lines are cut.',
  capabilities: { readsFiles: true, idempotent: true },
  input: Input,
  output: Output,
  examples: [
    {
      pattern: 'function\\s+main',
      path: 'src',
      glob: '*.ts',
      case_insensitive: false,
      fixed_strings: false,
      multiline: false,
      context: 0,
      output_mode: 'content',
      limit: 100,
      offset: 0,
      engine: 'auto',
    },
  ],
  async execute(input, ctx): Promise<Data> {
    const wanted = input.offset + input.limit;
    // File lists and counts need no match text: the runtime counts matching lines per file, far cheaper
    // than a hit per match. Both engines (ripgrep included) run in the session runtime; sorting and
    // paging happen here.
    const counting = input.output_mode !== 'content';
    const context = counting ? 0 : input.context;
    const { result } = await ctx.workspace.call('grep', {
      path: input.path,
      pattern: input.pattern,
      fixedStrings: input.fixed_strings,
      caseInsensitive: input.case_insensitive,
      multiline: input.multiline,
      context,
      globs: input.glob ? [input.glob] : [],
      maxHits: Math.max(20_000, wanted * (1 + 2 * context) * 2),
      engine: input.engine,
      countOnly: counting,
      ...(counting ? {} : { pageMatches: wanted }),
    });
    if (counting) return countsData(input, ctx, result.counts ?? [], result.capped, result.engine);

    const hits = [...result.hits].sort(byPathThenLine);
    // With ripgrep the runtime sends hits for the page only, and the per-file counts of every match.
    const total = result.counts
      ? result.counts.reduce((sum, entry) => sum + entry.count, 0)
      : hits.filter((h) => !h.context).length;
    const base = summary(input, total, result.capped, result.engine);
    const maxBytes = ctx.limits.outputMaxBytes;
    // content: page over matches; context lines go with the match before them in the same file (or,
    // at the start of a file, with the first match), so a page never splits a match from its context.
    const groups: GrepHit[][] = [];
    let leading: GrepHit[] = [];
    for (const hit of hits) {
      const last = groups[groups.length - 1];
      if (!hit.context) {
        groups.push([...leading, hit]);
        leading = [];
      } else if (last && last[last.length - 1].path === hit.path) last.push(hit);
      else leading.push(hit);
    }
    const size = (group: GrepHit[]) =>
      group.reduce((n, h) => n + h.path.length + Math.min(h.text.length, 2100) + 16, 0);
    const paged = page(groups, input.offset, input.limit, size, maxBytes);
    const { out } = paged;
    const more = paged.more || input.offset + out.length < total;
    const matches = out.flat().map((h) => ({
      path: h.path,
      line: h.line,
      text: cutLine(h.text).text,
      ...(h.context ? { context: true } : {}),
    }));
    return { ...base, matches, ...paging(input, result.capped, more, out.length) };
  },
  render(data) {
    const lines: string[] = [];
    if (data.files) lines.push(...data.files);
    if (data.counts) lines.push(...data.counts.map((c) => `${c.path}: ${c.count}`));
    if (data.matches) {
      for (const m of data.matches)
        lines.push(m.context ? `${m.path}-${m.line}- ${m.text}` : `${m.path}:${m.line}: ${m.text}`);
    }
    if (lines.length === 0) lines.push('No matches.');
    if (data.truncated) {
      lines.push(
        data.nextOffset !== undefined
          ? `(truncated: ${data.totalMatches} matches in all; continue with offset ${data.nextOffset})`
          : '(truncated: too many matches; narrow the pattern, path or glob)',
      );
    }
    return lines.join('\n');
  },
});
