// What the code-intel bench compares: a symbol (its definition's name position) and the places a
// compiler-grade oracle says use it; and a fixed, seeded random pick of them.

export interface OracleSymbol {
  name: string;
  /** Workspace-relative path, line and column (1-based) of the definition's name. */
  path: string;
  line: number;
  column: number;
  /** Uses (not the definition itself, not import/export specifiers), as `path:line:column`. */
  uses: string[];
}

/** mulberry32: a small seeded generator, so every run picks the same sample. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` items of `items` (sorted first, so the pick depends on the seed only). */
export function sample<T>(items: readonly T[], count: number, seed: number, key: (t: T) => string): T[] {
  const sorted = [...items].sort((a, b) => key(a).localeCompare(key(b)));
  const random = seeded(seed);
  for (let i = sorted.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [sorted[i], sorted[j]] = [sorted[j], sorted[i]];
  }
  return sorted.slice(0, count);
}
