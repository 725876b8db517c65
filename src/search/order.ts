// The orders search results come in: names by code unit (what rg and git sort by, independent of the
// locale), paths segment by segment (a directory's entries right after it), hits by path then line.

export const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Segment by segment, so a directory's children follow it directly (a tree render relies on it). */
export function comparePaths(a: string, b: string): number {
  const left = a.split('/');
  const right = b.split('/');
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    if (left[i] !== right[i]) return left[i] < right[i] ? -1 : 1;
  }
  return left.length - right.length;
}

export const byPathThenLine = (a: { path: string; line: number }, b: { path: string; line: number }) =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line;
