// .gitignore rules as grep and glob apply them: the workspace root's file plus the ones inside the
// searched directory (not those of directories between the root and it — ripgrep's view with
// --no-ignore-parent and the root file passed as --ignore-file; both engines must agree).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

export class GitignoreFilter {
  private readonly rules = new Map<string, Ignore | null>();
  private readonly verdicts = new Map<string, boolean>();

  /** Both are host paths; `searchRoot` is inside `workspaceRoot`. */
  constructor(
    private readonly workspaceRoot: string,
    private readonly searchRoot: string,
  ) {}

  private rulesOf(dir: string): Ignore | null {
    let rules = this.rules.get(dir);
    if (rules === undefined) {
      try {
        rules = ignore().add(readFileSync(path.join(dir, '.gitignore'), 'utf8'));
      } catch {
        rules = null;
      }
      this.rules.set(dir, rules);
    }
    return rules;
  }

  private readonly applicable = new Map<string, [string, Ignore][]>();

  /** The rules (with their directory) that apply to `parent`'s entries, outermost first; cached. */
  private rulesFor(parent: string): [string, Ignore][] {
    let found = this.applicable.get(parent);
    if (found) return found;
    const dirs: string[] = [];
    for (let dir = parent; ; dir = path.dirname(dir)) {
      dirs.push(dir);
      if (dir === this.searchRoot || dir === path.dirname(dir) || !dir.startsWith(this.searchRoot)) break;
    }
    if (!dirs.includes(this.workspaceRoot)) dirs.push(this.workspaceRoot);
    found = dirs
      .reverse()
      .map((dir): [string, Ignore | null] => [dir, this.rulesOf(dir)])
      .filter((pair): pair is [string, Ignore] => pair[1] !== null);
    this.applicable.set(parent, found);
    return found;
  }

  /** Whether the entry itself is ignored (callers check directories on the way down). */
  ignoredEntry(absolute: string, isDirectory: boolean): boolean {
    let ignored = false;
    for (const [dir, rules] of this.rulesFor(path.dirname(absolute))) {
      const relative = path.relative(dir, absolute).split(path.sep).join('/');
      if (!relative || relative.startsWith('..')) continue;
      const verdict = rules.test(isDirectory ? `${relative}/` : relative);
      if (verdict.ignored) ignored = true;
      else if (verdict.unignored) ignored = false;
    }
    return ignored;
  }

  /** Whether a file is ignored, itself or through one of its directories below the search root. */
  ignoredFile(absolute: string): boolean {
    for (
      let dir = path.dirname(absolute);
      dir.startsWith(this.searchRoot + path.sep);
      dir = path.dirname(dir)
    ) {
      let verdict = this.verdicts.get(dir);
      if (verdict === undefined) {
        verdict = this.ignoredEntry(dir, true);
        this.verdicts.set(dir, verdict);
      }
      if (verdict) return true;
    }
    return this.ignoredEntry(absolute, false);
  }
}
