// Places the chunks of a V4A update in a file's text and applies them. Lines are compared at four levels,
// strictest first, as OpenAI's reference apply_patch does: exact, then ignoring trailing whitespace, then
// ignoring surrounding whitespace, then with typographic punctuation (dashes, quotes, odd spaces) read as
// ASCII. Unlike the reference, a chunk never lands on the first of several equally good places: two
// places are an error naming both. Context lines keep the file's own text, so a loose match never
// rewrites them. Pure: text in, text out.
import { toolgateError } from '../lib/errors.js';
import { closestRegion } from './similarity.js';
import type { V4aChunk } from './v4a-parse.js';

export const MATCH_LEVELS = ['exact', 'trailing_whitespace', 'whitespace', 'unicode'] as const;
export type MatchLevel = (typeof MATCH_LEVELS)[number];

const PUNCTUATION: Record<string, string> = {};
for (const c of '\u2010\u2011\u2012\u2013\u2014\u2015\u2212') PUNCTUATION[c] = '-';
for (const c of '\u2018\u2019\u201A\u201B') PUNCTUATION[c] = "'";
for (const c of '\u201C\u201D\u201E\u201F') PUNCTUATION[c] = '"';
for (const c of '\u00A0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000')
  PUNCTUATION[c] = ' ';
const PUNCTUATION_RE = new RegExp(`[${Object.keys(PUNCTUATION).join('')}]`, 'g');

const KEYS: Record<MatchLevel, (line: string) => string> = {
  exact: (line) => line,
  trailing_whitespace: (line) => line.trimEnd(),
  whitespace: (line) => line.trim(),
  unicode: (line) => line.replace(PUNCTUATION_RE, (c) => PUNCTUATION[c]).trim(),
};

/** A cheap fingerprint of a line (its length and four of its characters): most lines differ in it. */
function fingerprint(line: string): number {
  const n = line.length;
  if (n === 0) return 0;
  return (
    ((((n * 31 + line.charCodeAt(0)) * 31 + line.charCodeAt(n >> 1)) * 31 + line.charCodeAt((n * 3) >> 2)) *
      31 +
      line.charCodeAt(n - 1)) |
    0
  );
}

/** The file's lines compared at each level, with their fingerprints, computed once per level on use. */
class KeyedLines {
  private readonly keyed = new Map<MatchLevel, { keys: readonly string[]; prints: Int32Array }>();
  constructor(readonly lines: readonly string[]) {}
  at(level: MatchLevel) {
    let entry = this.keyed.get(level);
    if (!entry) {
      const keys = level === 'exact' ? this.lines : this.lines.map(KEYS[level]);
      const prints = new Int32Array(keys.length);
      for (let i = 0; i < keys.length; i++) prints[i] = fingerprint(keys[i]);
      this.keyed.set(level, (entry = { keys, prints }));
    }
    return entry;
  }
}

interface Found {
  level: MatchLevel;
  /** Start indexes (0-based) of every place that matches at `level`, in order. */
  starts: number[];
}

/**
 * Every start in [from, last] where `wanted` matches `keys` line for line, in order (overlapping ones
 * too). Knuth–Morris–Pratt over lines: a file of identical lines and a long chunk of them cost file lines
 * + chunk lines comparisons, not their product (a 2,000-line chunk on a 20,000-line file took seconds).
 * A line is compared by its fingerprint first: a Map of the file's lines would hash every line, which
 * costs more than this whole scan, and most fingerprints differ.
 */
function matchStarts(
  keys: readonly string[],
  prints: Int32Array,
  wanted: readonly string[],
  from: number,
  last: number,
): number[] {
  const m = wanted.length;
  const wantedPrints = wanted.map(fingerprint);
  const same = (i: number, j: number) => prints[i] === wantedPrints[j] && keys[i] === wanted[j];
  const samePattern = (a: number, b: number) =>
    wantedPrints[a] === wantedPrints[b] && wanted[a] === wanted[b];
  // fallback[j]: the length of the longest proper prefix of wanted[0..j] that is also its suffix.
  const fallback = new Int32Array(m);
  for (let j = 1, k = 0; j < m; j++) {
    while (k > 0 && !samePattern(j, k)) k = fallback[k - 1];
    if (samePattern(j, k)) k++;
    fallback[j] = k;
  }
  const starts: number[] = [];
  const end = last + m; // one past the last line a match may use
  for (let i = from, j = 0; i < end; i++) {
    while (j > 0 && !same(i, j)) j = fallback[j - 1];
    if (same(i, j)) j++;
    if (j === m) {
      starts.push(i - m + 1);
      j = fallback[j - 1];
    }
  }
  return starts;
}

/**
 * Every place at or after `from` where `pattern` matches, at the strictest level that finds any; with
 * `onlyAt`, only that place.
 */
function seek(
  file: KeyedLines,
  pattern: readonly string[],
  from: number,
  onlyAt?: number,
): Found | undefined {
  for (const level of MATCH_LEVELS) {
    const { keys, prints } = file.at(level);
    const wanted = pattern.map(KEYS[level]);
    const first = onlyAt ?? from;
    const last = Math.min(onlyAt ?? Infinity, keys.length - wanted.length);
    if (wanted.length === 0 || first > last) continue;
    const starts = matchStarts(keys, prints, wanted, first, last);
    if (starts.length) return { level, starts };
  }
  return undefined;
}

export interface V4aResult {
  text: string;
  /** The loosest level any chunk's lines needed ("@@" hints are matched as loosely, but not counted). */
  level: MatchLevel;
  additions: number;
  deletions: number;
}

interface Placement {
  start: number;
  chunk: V4aChunk;
  /** The chunk's lines without the trailing blank context lines the match did without. */
  lines: V4aChunk['lines'];
}

const describeChunk = (chunk: V4aChunk, index: number, count: number, path: string) =>
  `Chunk ${index + 1}${count > 1 ? ` of ${count}` : ''} of the update to ${path} (patch line ${chunk.patchLine}` +
  `${chunk.anchors.length ? `, under "@@ ${chunk.anchors.join('" / "@@ ')}"` : ''})`;

const looser = (a: MatchLevel, b: MatchLevel) => (MATCH_LEVELS.indexOf(b) > MATCH_LEVELS.indexOf(a) ? b : a);

function closestText(lines: readonly string[], wanted: string): string {
  const closest = closestRegion([...lines], wanted);
  return closest
    ? ` The closest text (lines ${closest.startLine}-${closest.endLine}) is:\n${closest.text.slice(0, 1500)}\n`
    : ' ';
}

/** Applies the chunks in order (each after the previous one) to LF `text`; `path` names the file in errors. */
export function applyV4aChunks(text: string, chunks: readonly V4aChunk[], path: string): V4aResult {
  const endsWithNewline = text.endsWith('\n');
  const lines = text === '' ? [] : (endsWithNewline ? text.slice(0, -1) : text).split('\n');
  const file = new KeyedLines(lines);
  let level: MatchLevel = 'exact';
  let cursor = 0;
  let lastAnchor: { text: string; index: number } | undefined;
  const placements: Placement[] = [];

  chunks.forEach((chunk, k) => {
    const name = describeChunk(chunk, k, chunks.length, path);
    let searchFrom = cursor;
    let anchored = false;
    let anchorAt: number | undefined;
    chunk.anchors.forEach((anchor, a) => {
      // The same hint as the previous chunk's: this chunk is in the same scope, further down.
      if (a === 0 && lastAnchor?.text === anchor && !seek(file, [anchor], searchFrom)) {
        anchored = true;
        return;
      }
      const found = seek(file, [anchor], searchFrom);
      if (!found) {
        const before = seek(file, [anchor], 0);
        throw toolgateError(
          'PATCH_FAILED',
          `${name}: the line "@@ ${anchor}" is not in ${path}${before ? ` after line ${searchFrom}` : ''}`,
          {
            suggestion: before
              ? `It is at line ${before.starts[0] + 1}, above an earlier chunk: chunks of a file must come in file order. Reorder them, or merge them into one.`
              : `The text after "@@ " must be a line of the file (usually the def/class/function line above the change).${closestText(lines, anchor)}Read the file again and regenerate the patch.`,
            details: { format: 'v4a', path, chunk: k + 1, anchor },
          },
        );
      }
      // An outer hint must name one place; inner hints are looked for inside it, so the first one counts.
      if (a === 0 && found.starts.length > 1) {
        const at = found.starts.map((s) => s + 1);
        throw toolgateError(
          'EDIT_AMBIGUOUS',
          `${name}: the line "@@ ${anchor}" matches ${at.length} places in ${path}, at lines ${at.join(', ')}`,
          {
            suggestion: `Add an outer "@@" line first (e.g. the enclosing class: "@@ class Name" then "@@ ${anchor}") so the hint names one place.`,
            details: { format: 'v4a', path, chunk: k + 1, lines: at, level: found.level },
          },
        );
      }
      // Hints are written without their indentation as a rule, so they do not count towards `level`.
      searchFrom = found.starts[0];
      anchorAt = found.starts[0];
      anchored = true;
      lastAnchor = a === 0 ? { text: anchor, index: found.starts[0] } : lastAnchor;
    });

    let body = chunk.lines;
    const old = () => body.filter((l) => l.op !== '+').map((l) => l.text);
    if (old().length === 0) {
      // Only additions: right below the hint, or at the end of the file without one.
      const start = chunk.eof
        ? lines.length
        : anchorAt !== undefined
          ? anchorAt + 1
          : anchored
            ? cursor
            : lines.length;
      placements.push({ start, chunk, lines: body });
      cursor = start;
      return;
    }
    let found: Found | undefined;
    for (;;) {
      const pattern = old();
      const endStart = lines.length - pattern.length;
      const atEnd = chunk.eof && endStart >= searchFrom ? seek(file, pattern, 0, endStart) : undefined;
      found = atEnd ?? seek(file, pattern, searchFrom);
      // A blank last context line may stand for the file's final newline: try again without it.
      const tail = body.at(-1);
      if (found || !tail || tail.op !== ' ' || tail.text.trim() !== '' || old().length < 2) break;
      body = body.slice(0, -1);
    }
    if (!found) {
      throw toolgateError(
        'PATCH_FAILED',
        `${name} does not match ${path}: its context and "-" lines were not found${searchFrom > 0 ? ` after line ${searchFrom}` : ''}`,
        {
          suggestion: `Context (" ") and removed ("-") lines must be the file's lines in order.${closestText(lines, old().join('\n'))}Read the file again and regenerate the patch.`,
          details: { format: 'v4a', path, chunk: k + 1 },
        },
      );
    }
    // Below a hint the nearest place is the one meant; without a hint, two places are a guess.
    if (!anchored && found.starts.length > 1) {
      const at = found.starts.map((s) => s + 1);
      throw toolgateError(
        'EDIT_AMBIGUOUS',
        `${name} matches ${at.length} places in ${path} equally well, at lines ${at.join(', ')}`,
        {
          suggestion:
            'Add an "@@ <line above the change>" hint (the enclosing def, function or class line), or more context lines, so the chunk matches one place.',
          details: { format: 'v4a', path, chunk: k + 1, lines: at, level: found.level },
        },
      );
    }
    level = looser(level, found.level);
    placements.push({ start: found.starts[0], chunk, lines: body });
    cursor = found.starts[0] + old().length;
  });

  return build(lines, placements, endsWithNewline, level);
}

function build(
  lines: readonly string[],
  placements: Placement[],
  endsWithNewline: boolean,
  level: MatchLevel,
): V4aResult {
  const out: string[] = [];
  let at = 0;
  let additions = 0;
  let deletions = 0;
  for (const { start, lines: body } of placements) {
    while (at < start) out.push(lines[at++]);
    for (const line of body) {
      if (line.op === '+') {
        out.push(line.text);
        additions++;
      } else {
        // Context keeps the file's own text (a loose match must not rewrite it); "-" drops the line.
        if (line.op === ' ') out.push(lines[at]);
        else deletions++;
        at++;
      }
    }
  }
  while (at < lines.length) out.push(lines[at++]);
  // A file that ended with a newline keeps it; one that did not gets one only if it was empty.
  const text = out.length === 0 ? '' : out.join('\n') + (endsWithNewline || lines.length === 0 ? '\n' : '');
  return { text, level, additions, deletions };
}
