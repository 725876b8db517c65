// The .gitignore policy (../../search/gitignore.ts) over the runtime's disk: reads each directory's
// .gitignore once. GitignoreFilter answers for host paths, for walks that hold absolute paths.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { GitignorePolicy } from '../../search/gitignore.js';

/** The policy for a workspace root (host path): .gitignore files read from disk, once each. */
export const gitignoreAt = (root: string): GitignorePolicy =>
  new GitignorePolicy((dir) => {
    try {
      return readFileSync(path.join(root, dir, '.gitignore'), 'utf8');
    } catch {
      return undefined;
    }
  });

const toPosix = (p: string) => p.split(path.sep).join('/');

export class GitignoreFilter {
  private readonly policy: GitignorePolicy;
  private readonly from: string;

  /** Both are host paths; `searchRoot` is inside `workspaceRoot`. */
  constructor(
    private readonly workspaceRoot: string,
    searchRoot: string,
  ) {
    this.policy = gitignoreAt(workspaceRoot);
    this.from = toPosix(path.relative(workspaceRoot, searchRoot));
  }

  private relative = (absolute: string) => toPosix(path.relative(this.workspaceRoot, absolute));

  /** Whether the entry itself is ignored (callers check directories on the way down). */
  ignoredEntry(absolute: string, isDirectory: boolean): boolean {
    return this.policy.matches(this.relative(absolute), isDirectory);
  }

  /** Whether a file is ignored, itself or through one of its directories below the search root. */
  ignoredFile(absolute: string): boolean {
    return this.policy.ignored(this.relative(absolute), false, this.from);
  }
}
