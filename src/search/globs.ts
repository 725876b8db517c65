// The globs callers pass: grep's rg-style include/exclude globs and glob's pattern, matched with
// picomatch the same way inside the runtime's walks. Pure.
import picomatch from 'picomatch';

export type PathMatcher = (relative: string) => boolean;

/**
 * rg-style globs: "*.ts" keeps matching files, "!dist" drops matching files and directories; a glob
 * without "/" matches the name at any depth. Paths are relative to the searched directory.
 */
export function grepGlobFilters(globs: readonly string[]): {
  keep: PathMatcher;
  drop: PathMatcher;
  /** rg's override rule: what the globs decide before any .gitignore (see docs/search.md). */
  override: (relative: string, isDirectory: boolean) => 'include' | 'exclude' | undefined;
} {
  const positive = globs.filter((g) => !g.startsWith('!'));
  const negative = globs.filter((g) => g.startsWith('!')).map((g) => g.slice(1));
  const options = { dot: true, basename: true };
  const keep: PathMatcher = positive.length ? picomatch(positive, options) : () => true;
  const drop: PathMatcher = negative.length ? picomatch(negative, options) : () => false;
  // As rg: a dropped entry is out; with include globs, a matching entry is in even if .gitignore'd, and
  // a file matching none is out (directories are still entered unless .gitignore'd).
  const override = (relative: string, isDirectory: boolean) =>
    drop(relative)
      ? ('exclude' as const)
      : !positive.length
        ? undefined
        : keep(relative)
          ? ('include' as const)
          : isDirectory
            ? undefined
            : ('exclude' as const);
  return { keep, drop, override };
}

/**
 * glob's pattern (relative to the searched directory; without "/" it matches names at any depth), and
 * which directories can hold a match: those on the way to or under the pattern's fixed leading part
 * ("src" of "src/**\/*.ts"), so a walk need not enter the others.
 */
export function globPattern(pattern: string): { matches: PathMatcher; mayEnter: PathMatcher } {
  const matches = picomatch(pattern, { dot: true, basename: true });
  const scan = picomatch.scan(pattern);
  const base = scan.isGlob ? scan.base : pattern.split('/').slice(0, -1).join('/');
  const mayEnter = (dir: string) =>
    base === '' || dir === base || base.startsWith(`${dir}/`) || dir.startsWith(`${base}/`);
  return { matches, mayEnter };
}
