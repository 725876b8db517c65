// Classifies identifier and file-name styles and finds the dominant one.

export type NamingStyle = 'camelCase' | 'PascalCase' | 'snake_case' | 'UPPER_SNAKE' | 'kebab-case';

export function styleOf(name: string): NamingStyle | undefined {
  if (/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/.test(name)) return 'UPPER_SNAKE';
  if (/^[a-z][a-z0-9]*(-[a-z0-9]+)+$/.test(name)) return 'kebab-case';
  if (/^_*[a-z][a-z0-9]*(_[a-z0-9]+)+$/.test(name)) return 'snake_case';
  if (/^_*[a-z][a-z0-9]*([A-Z][a-z0-9]*)+$/.test(name)) return 'camelCase';
  if (/^[A-Z][a-z0-9]+([A-Z][a-z0-9]*)*$/.test(name)) return 'PascalCase';
  // One lowercase word fits camelCase and snake_case alike: it says nothing.
  return undefined;
}

export class StyleTally {
  private readonly counts = new Map<NamingStyle, number>();

  add(name: string): void {
    const style = styleOf(name);
    if (style) this.counts.set(style, (this.counts.get(style) ?? 0) + 1);
  }

  /** The style of at least 60% of the classified names, 'mixed' otherwise, undefined with none. */
  dominant(): string | undefined {
    let total = 0;
    let best: [NamingStyle, number] | undefined;
    for (const entry of this.counts) {
      total += entry[1];
      if (!best || entry[1] > best[1]) best = entry;
    }
    if (!best) return undefined;
    return best[1] / total >= 0.6 ? best[0] : 'mixed';
  }
}
