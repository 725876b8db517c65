// How edit_file finds old_string: exact first, then fuzzy rules from strictest to loosest. Each rule
// returns the regions of the (LF) content it matches and how to adapt new_string to a region.
import { similarity } from './similarity.js';

export const STRATEGY_NAMES = [
  'exact',
  'trimmed_boundary',
  'indentation_flexible',
  'line_trimmed',
  'whitespace_normalized',
  'escape_normalized',
  'block_anchor',
] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];

export interface Region {
  start: number;
  end: number;
}

export interface Strategy {
  readonly name: StrategyName;
  /** Non-overlapping regions of `content` that this rule considers equal to `find`, in order. */
  find(content: string, find: string): Region[];
  /** The text to put in place of `matched` for the caller's `replacement`. */
  adapt(replacement: string, find: string, matched: string): string;
  /** Several matches may be replaced together (replace_all); false for the similarity-based rule. */
  readonly allowsMany: boolean;
}

/** A block whose first and last lines match is accepted when the whole is at least this similar. */
export const BLOCK_ANCHOR_THRESHOLD = 0.8;
/** Full similarity computations per edit, at most (each may be up to 4M cells). */
const MAX_BLOCK_COMPARISONS = 50;

const asIs = (replacement: string): string => replacement;

function exactRegions(content: string, find: string): Region[] {
  const regions: Region[] = [];
  if (find === '') return regions;
  for (let at = content.indexOf(find); at !== -1; at = content.indexOf(find, at + find.length)) {
    regions.push({ start: at, end: at + find.length });
  }
  return regions;
}

const leadingSpace = (text: string): string => /^\s*/.exec(text)![0];
const trailingSpace = (text: string): string => /\s*$/.exec(text)![0];

/** Drops from `replacement` the surrounding whitespace `find` had and the match did not. */
function stripBoundary(replacement: string, find: string): string {
  const lead = leadingSpace(find);
  const trail = trailingSpace(find);
  let core = replacement.startsWith(lead) ? replacement.slice(lead.length) : replacement.trimStart();
  core = trail && core.endsWith(trail) ? core.slice(0, core.length - trail.length) : core.trimEnd();
  return core;
}

const indentOf = (line: string): string => /^[ \t]*/.exec(line)![0];
const firstIndent = (text: string): string => indentOf(text.split('\n').find((l) => l.trim() !== '') ?? '');

/** Shifts every line of `replacement` by the indentation difference between `find` and the match. */
function reindent(replacement: string, find: string, matched: string): string {
  const from = firstIndent(find);
  const to = firstIndent(matched);
  if (from === to) return replacement;
  return replacement
    .split('\n')
    .map((line) => {
      if (line.trim() === '') return line;
      if (line.startsWith(from)) return to + line.slice(from.length);
      // Less indented than find's first line: keep its relative position as far as possible.
      return to.length > from.length ? to.slice(0, to.length - from.length) + line : line.trimStart();
    })
    .join('\n');
}

interface Lines {
  lines: string[];
  starts: number[];
}

function splitLines(content: string): Lines {
  const lines = content.split('\n');
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  return { lines, starts };
}

/** The lines of `find` to compare; a trailing newline does not make an extra empty line. */
const findLines = (find: string): string[] => (find.endsWith('\n') ? find.slice(0, -1) : find).split('\n');

/** The region covering lines [first, first+count), with the newline after it when `find` ended with one. */
function lineRegion(content: Lines, first: number, count: number, find: string): Region {
  const last = first + count - 1;
  const start = content.starts[first];
  let end = content.starts[last] + content.lines[last].length;
  if (find.endsWith('\n') && last < content.lines.length - 1) end += 1;
  return { start, end };
}

/**
 * Both line-window rules compare lines ignoring their surrounding whitespace at least, so a window whose
 * trimmed lines differ from the wanted ones cannot match: that is checked first, without allocating, and
 * the rule's own comparison runs only on windows that pass. A 500-line old_string on a 20,000-line file
 * cost a dedent of every window before (seconds); now most windows end at their first line.
 */
function lineWindows(
  content: string,
  find: string,
  sameLines: (window: string[], wanted: string[]) => boolean,
): Region[] {
  const wanted = findLines(find);
  if (wanted.every((l) => l.trim() === '')) return [];
  const parsed = splitLines(content);
  const trimmed = parsed.lines.map((l) => l.trim());
  const wantedTrimmed = wanted.map((l) => l.trim());
  const regions: Region[] = [];
  for (let i = 0; i + wanted.length <= parsed.lines.length; i++) {
    let j = 0;
    while (j < wanted.length && trimmed[i + j] === wantedTrimmed[j]) j++;
    if (j < wanted.length) continue;
    if (sameLines(parsed.lines.slice(i, i + wanted.length), wanted)) {
      regions.push(lineRegion(parsed, i, wanted.length, find));
      i += wanted.length - 1;
    }
  }
  return regions;
}

function dedent(lines: string[]): string[] {
  const indents = lines.filter((l) => l.trim() !== '').map((l) => indentOf(l).length);
  const common = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => (l.trim() === '' ? '' : l.slice(common).trimEnd()));
}

const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '"': '"',
  "'": "'",
  '`': '`',
  $: '$',
  '\\': '\\',
};
const unescape = (text: string): string => text.replace(/\\([ntr"'`$\\])/g, (_, ch: string) => ESCAPES[ch]);

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function blockAnchorRegions(content: string, find: string): Region[] {
  const wanted = findLines(find).map((l) => l.trim());
  if (wanted.length < 3) return [];
  const parsed = splitLines(content);
  const trimmed = parsed.lines.map((l) => l.trim());
  const slack = Math.ceil(wanted.length / 4);
  const wantedText = wanted.join('\n');
  const regions: Region[] = [];
  let compared = 0;
  for (let i = 0; i < trimmed.length; i++) {
    if (trimmed[i] !== wanted[0]) continue;
    const minLast = i + Math.max(2, wanted.length - 1 - slack);
    const maxLast = Math.min(trimmed.length - 1, i + wanted.length - 1 + slack);
    for (let last = minLast; last <= maxLast; last++) {
      if (trimmed[last] !== wanted[wanted.length - 1]) continue;
      const candidate = trimmed.slice(i, last + 1).join('\n');
      // The edit distance is at least the length difference: skip hopeless candidates cheaply, and stop
      // after a bounded number of full comparisons (a "}" first and last line can match everywhere).
      const longest = Math.max(wantedText.length, candidate.length);
      if (Math.abs(wantedText.length - candidate.length) / longest > 1 - BLOCK_ANCHOR_THRESHOLD) continue;
      // Out of budget: uniqueness can no longer be shown, so this rule does not apply at all.
      if (++compared > MAX_BLOCK_COMPARISONS) return [];
      if (similarity(wantedText, candidate) >= BLOCK_ANCHOR_THRESHOLD) {
        regions.push(lineRegion(parsed, i, last - i + 1, find));
        break;
      }
    }
  }
  return regions;
}

export const STRATEGIES: readonly Strategy[] = [
  { name: 'exact', allowsMany: true, find: exactRegions, adapt: asIs },
  {
    // The model added blank lines or spaces around the text.
    name: 'trimmed_boundary',
    allowsMany: true,
    find: (content, find) => (find.trim() === find ? [] : exactRegions(content, find.trim())),
    adapt: (replacement, find) => stripBoundary(replacement, find),
  },
  {
    // The block is right but indented differently as a whole (copied from a nested scope).
    name: 'indentation_flexible',
    allowsMany: true,
    find: (content, find) =>
      lineWindows(content, find, (window, wanted) => dedent(window).join('\n') === dedent(wanted).join('\n')),
    adapt: reindent,
  },
  {
    // Each line matches once leading and trailing whitespace are ignored.
    name: 'line_trimmed',
    allowsMany: true,
    find: (content, find) =>
      lineWindows(content, find, (window, wanted) =>
        window.every((line, i) => line.trim() === wanted[i].trim()),
      ),
    adapt: reindent,
  },
  {
    // Runs of whitespace (including line breaks) differ.
    name: 'whitespace_normalized',
    allowsMany: true,
    find: (content, find) => {
      const tokens = find.trim().split(/\s+/).filter(Boolean);
      if (tokens.length < 2) return [];
      const pattern = new RegExp(tokens.map(escapeRegExp).join('\\s+'), 'g');
      return [...content.matchAll(pattern)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
    },
    adapt: (replacement, find) => stripBoundary(replacement, find),
  },
  {
    // The model escaped the text once too often ("\\n" for a line break, "\\\"" for a quote).
    name: 'escape_normalized',
    allowsMany: true,
    find: (content, find) => (unescape(find) === find ? [] : exactRegions(content, unescape(find))),
    adapt: (replacement) => unescape(replacement),
  },
  {
    // First and last lines match and the block as a whole is similar enough; must be unique.
    name: 'block_anchor',
    allowsMany: false,
    find: blockAnchorRegions,
    adapt: reindent,
  },
];
