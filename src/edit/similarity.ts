// String similarity for fuzzy edits: normalized Levenshtein for small texts, bigram Dice for large ones
// (same 0..1 scale, linear time), and the closest region of a file to a text that was not found.
import { editDistance } from '../lib/edit-distance.js';

const LEVENSHTEIN_MAX_CELLS = 4_000_000;
const CLOSEST_BUDGET_CHARS = 4_000_000;

function bigrams(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i < text.length - 1; i++) {
    const gram = text.slice(i, i + 2);
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return counts;
}

function dice(a: Map<string, number>, aSize: number, b: string): number {
  const other = bigrams(b);
  const total = aSize + Math.max(0, b.length - 1);
  if (total === 0) return 1;
  let shared = 0;
  for (const [gram, count] of other) shared += Math.min(count, a.get(gram) ?? 0);
  return (2 * shared) / total;
}

/** 1 for equal texts, 0 for nothing in common. */
export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  if (a.length * b.length <= LEVENSHTEIN_MAX_CELLS)
    return 1 - editDistance(a, b) / Math.max(a.length, b.length);
  return dice(bigrams(a), Math.max(0, a.length - 1), b);
}

export interface ClosestRegion {
  startLine: number;
  endLine: number;
  text: string;
  similarity: number;
}

/** The window of lines (as many as `wanted` has) most similar to `wanted`; undefined for an empty file. */
export function closestRegion(lines: readonly string[], wanted: string): ClosestRegion | undefined {
  if (lines.length === 0 || (lines.length === 1 && lines[0] === '')) return undefined;
  const size = Math.min(lines.length, Math.max(1, wanted.split('\n').length));
  const wantedGrams = bigrams(wanted);
  const wantedSize = Math.max(0, wanted.length - 1);
  let best = { start: 0, score: -1 };
  // Bounded work on big files with a big old_string: beyond ~4M characters compared, skip windows.
  const windowChars = Math.max(1, wanted.length);
  const step = Math.max(1, Math.ceil(((lines.length - size + 1) * windowChars) / CLOSEST_BUDGET_CHARS));
  for (let start = 0; start + size <= lines.length; start += step) {
    const score = dice(wantedGrams, wantedSize, lines.slice(start, start + size).join('\n'));
    if (score > best.score) best = { start, score };
  }
  const text = lines.slice(best.start, best.start + size).join('\n');
  return {
    startLine: best.start + 1,
    endLine: best.start + size,
    text,
    similarity: similarity(wanted, text),
  };
}
