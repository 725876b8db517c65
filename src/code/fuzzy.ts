// Scores a symbol name against a query: exact beats case-insensitive beats prefix beats substring beats
// an in-order subsequence (fzf-style, fewer and shorter gaps score higher). 0 = no match.
export function fuzzyScore(name: string, query: string): number {
  if (name === query) return 1000;
  const lowerName = name.toLowerCase();
  const lowerQuery = query.toLowerCase();
  if (lowerName === lowerQuery) return 900;
  if (lowerName.startsWith(lowerQuery)) return 800 - Math.min(100, name.length - query.length);
  const at = lowerName.indexOf(lowerQuery);
  if (at >= 0) return 600 - Math.min(100, at + name.length - query.length);
  let score = 400;
  let last = -1;
  for (const ch of lowerQuery) {
    const found = lowerName.indexOf(ch, last + 1);
    if (found < 0) return 0;
    // A match at a word boundary (camelCase hump, after _ or -) reads as intended; a gap does not.
    const boundary = found === 0 || /[_\-.]/.test(name[found - 1]) || /[A-Z]/.test(name[found]);
    score -= found - last - 1 > 0 ? Math.min(20, 2 * (found - last - 1)) : 0;
    if (boundary) score += 5;
    last = found;
  }
  return Math.max(1, score - Math.min(100, name.length - query.length));
}
