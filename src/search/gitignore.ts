// THE .gitignore policy (docs/search.md), the way git and ripgrep read .gitignore files: every
// .gitignore from the workspace root down to a path's own directory applies, each relative to its
// directory; deeper files override shallower ones and later lines earlier ones ("!" re-includes); an
// ignored directory is not entered, so nothing under it comes back. The directory a search starts in
// and its parents are never judged: naming an ignored directory searches it, as with rg. Pure: the
// runtime passes a loader that reads a directory's .gitignore.
import { parseRules, rebaseRules, verdict, type GitignoreRule } from './gitignore-rules.js';

/** The text of `dir`'s .gitignore (workspace-relative POSIX, '' for the root), or undefined. */
export type RulesLoader = (dir: string) => string | undefined;

/** The directories whose .gitignore files apply to `relative`: the root, then each ancestor, outermost first. */
export function ruleDirsOf(relative: string): string[] {
  const dirs = [''];
  for (let at = relative.indexOf('/'); at !== -1; at = relative.indexOf('/', at + 1)) {
    dirs.push(relative.slice(0, at));
  }
  return dirs;
}

export class GitignorePolicy {
  private readonly rules = new Map<string, readonly GitignoreRule[]>();
  private readonly dirVerdicts = new Map<string, boolean>();

  constructor(private readonly load: RulesLoader) {}

  /** Records that `dir` has no .gitignore (a walk that listed it knows), sparing a read. */
  noRulesIn(dir: string): void {
    if (!this.rules.has(dir)) this.rules.set(dir, []);
  }

  /** The parsed rules of `dir`'s .gitignore (empty when it has none). */
  rulesOf(dir: string): readonly GitignoreRule[] {
    let rules = this.rules.get(dir);
    if (rules === undefined) {
      const text = this.load(dir);
      rules = text === undefined ? [] : parseRules(text);
      this.rules.set(dir, rules);
    }
    return rules;
  }

  /**
   * Whether the entry itself is ignored by the .gitignore files from the root down to its directory.
   * Its directories are not judged: a walk never enters an ignored directory in the first place.
   */
  matches(relative: string, isDirectory: boolean): boolean {
    let ignored = false;
    for (const dir of ruleDirsOf(relative)) {
      const rules = this.rulesOf(dir);
      if (!rules.length) continue;
      const found = verdict(rules, dir === '' ? relative : relative.slice(dir.length + 1), isDirectory);
      if (found) ignored = found === 'ignored';
    }
    return ignored;
  }

  /**
   * Whether `relative` is ignored in a search of `from` (a directory, '' for the workspace root): it, or
   * a directory between `from` and it, is ignored. `from` and its parents are not judged.
   */
  ignored(relative: string, isDirectory: boolean, from = ''): boolean {
    for (const dir of ruleDirsOf(relative)) {
      if (dir === '' || (from !== '' && !dir.startsWith(`${from}/`))) continue;
      let dirIgnored = this.dirVerdicts.get(dir);
      if (dirIgnored === undefined) {
        dirIgnored = this.matches(dir, true);
        this.dirVerdicts.set(dir, dirIgnored);
      }
      if (dirIgnored) return true;
    }
    return this.matches(relative, isDirectory);
  }

  /**
   * For ripgrep searching `from`: the rules of the .gitignore files above it (the root's through its
   * parent's), rebased to the root, outermost first; '' when there are none.
   */
  rulesAbove(from: string): string {
    if (from === '') return '';
    return ruleDirsOf(from)
      .map((dir) => rebaseRules(this.rulesOf(dir), dir))
      .filter(Boolean)
      .join('\n');
  }
}
