// THE workspace walker (docs/search.md), behind list_directory, glob, the JavaScript grep engine, the
// code index, project analysis and packing a directory for undo. Never follows a symlink (it is yielded
// as one); FIFOs, sockets and devices come as "other"; .git and the caller's heavy folders are yielded
// but not entered; with `gitignore`, .gitignore'd entries (../../search/gitignore.ts) are left out.
// Names come in code-unit order, depth-first (a directory's entries, then its subdirectories) or
// breadth-first (level by level, so a cap keeps the top of the tree).
import { lstatSync, readdirSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { fromFsError, toolgateError } from '../../lib/errors.js';
import { DEFAULT_IGNORED_DIRS } from '../../search/ignored-dirs.js';
import { byName } from '../../search/order.js';
import type { ListedType } from '../ops/walk.js';
import { gitignoreAt } from './gitignore.js';

export interface WalkEntry {
  /** Workspace-relative POSIX path. */
  readonly path: string;
  /** Relative to the walked directory. */
  readonly inWalk: string;
  readonly absolute: string;
  readonly name: string;
  readonly type: ListedType;
  /** 1 for the walked directory's own entries. */
  readonly depth: number;
}

export interface WalkOptions {
  /** Workspace root (real path) and the directory to walk inside it. */
  readonly root: string;
  readonly dir: string;
  readonly signal: AbortSignal;
  /** Leave out .gitignore'd entries (the walked directory and its parents are not judged). */
  readonly gitignore: boolean;
  /** Directory names yielded but never entered. */
  readonly skipDirs: ReadonlySet<string>;
  /** Entries to leave out altogether (not yielded, not entered). */
  readonly exclude?: (entry: WalkEntry) => boolean;
  /**
   * rg-style overrides (grep's globs), judged before .gitignore: "include" keeps an entry a .gitignore
   * would leave out, "exclude" leaves it out.
   */
  readonly override?: (entry: WalkEntry) => 'include' | 'exclude' | undefined;
  /** Levels to enter (1: the directory's own entries only). */
  readonly maxDepth?: number;
  readonly breadthFirst?: boolean;
  /** Fail on an unreadable directory instead of skipping it. */
  readonly strict?: boolean;
  /** The TIMEOUT message when the signal fires. */
  readonly cancelled?: string;
}

const typeOf = (entry: Dirent): ListedType =>
  entry.isSymbolicLink() ? 'symlink' : entry.isDirectory() ? 'directory' : entry.isFile() ? 'file' : 'other';

const toPosix = (p: string) => p.split(path.sep).join('/');

// Directory reads are synchronous: for thousands of small calls they cost a fraction of the promise
// versions, and the walk hands the event loop back every few milliseconds anyway.
const YIELD_EVERY_MS = 10;

export async function* walkWorkspace(options: WalkOptions): AsyncGenerator<WalkEntry> {
  const { root, signal, skipDirs, exclude } = options;
  const maxDepth = options.maxDepth ?? Infinity;
  const policy = options.gitignore ? gitignoreAt(root) : undefined;
  const start = toPosix(path.relative(root, options.dir));
  const pending: { absolute: string; relative: string; depth: number }[] = [
    { absolute: options.dir, relative: start, depth: 0 },
  ];
  let sliceStart = performance.now();
  while (pending.length) {
    if (signal.aborted) throw toolgateError('TIMEOUT', options.cancelled ?? 'The walk was cancelled');
    if (performance.now() - sliceStart > YIELD_EVERY_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
    const dir = options.breadthFirst ? pending.shift()! : pending.pop()!;
    let children: Dirent[];
    try {
      children = readdirSync(dir.absolute, { withFileTypes: true });
    } catch (err) {
      if (options.strict) throw fromFsError(err, dir.relative || '.');
      continue;
    }
    if (policy && !children.some((child) => child.name === '.gitignore')) policy.noRulesIn(dir.relative);
    children.sort((a, b) => byName(a.name, b.name));
    const subdirs: typeof pending = [];
    for (const child of children) {
      const relative = dir.relative ? `${dir.relative}/${child.name}` : child.name;
      const type = typeOf(child);
      const entry: WalkEntry = {
        path: relative,
        inWalk: start ? relative.slice(start.length + 1) : relative,
        absolute: path.join(dir.absolute, child.name),
        name: child.name,
        type,
        depth: dir.depth + 1,
      };
      const overridden = options.override?.(entry);
      if (overridden === 'exclude' || exclude?.(entry)) continue;
      if (overridden !== 'include' && policy?.matches(relative, type === 'directory')) continue;
      yield entry;
      if (type === 'directory' && entry.depth < maxDepth && !skipDirs.has(child.name)) {
        subdirs.push({ absolute: entry.absolute, relative, depth: entry.depth });
      }
    }
    // Depth-first: reversed onto the stack so directories are visited in name order.
    if (options.breadthFirst) pending.push(...subdirs);
    else for (let i = subdirs.length - 1; i >= 0; i--) pending.push(subdirs[i]);
  }
}

export interface WalkedFile {
  /** Workspace-relative POSIX path. */
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/** The source walk of the code index and project analysis: regular files, heavy folders and .gitignore'd entries left out. */
export async function walkSourceFiles(options: {
  readonly root: string;
  readonly dir: string;
  readonly signal: AbortSignal;
  /** Keep only files this accepts (by workspace-relative path). */
  readonly accept: (relative: string) => boolean;
  readonly maxFiles: number;
}): Promise<{ files: WalkedFile[]; truncated: boolean }> {
  const files: WalkedFile[] = [];
  for await (const entry of walkWorkspace({ ...options, gitignore: true, skipDirs: HEAVY_DIRS })) {
    if (entry.type !== 'file' || !options.accept(entry.path)) continue;
    const stat = lstatSafe(entry.absolute);
    if (!stat?.isFile()) continue;
    if (files.length >= options.maxFiles) return { files, truncated: true };
    files.push({ path: entry.path, size: stat.size, mtimeMs: stat.mtimeMs });
  }
  return { files, truncated: false };
}

const HEAVY_DIRS: ReadonlySet<string> = new Set(DEFAULT_IGNORED_DIRS);

function lstatSafe(file: string) {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}
