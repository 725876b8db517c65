// Walks a workspace directory for source files, inside the runtime: skips heavy folders (node_modules,
// .git, build output), honours .gitignore files at every level, never follows symlinks, leaves out
// FIFOs, sockets and devices, stops when the signal fires.
import { lstatSync, readdirSync, readFileSync, type Dirent } from 'node:fs';
import path from 'node:path';
import ignore from 'ignore';
import { toolgateError } from '../../lib/errors.js';
import { DEFAULT_IGNORED_DIRS } from '../ops/walk.js';

type Ignore = ReturnType<typeof ignore>;
const HEAVY_DIRS = new Set(DEFAULT_IGNORED_DIRS);

export interface WalkedFile {
  /** Workspace-relative POSIX path. */
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
}

export interface WalkOptions {
  /** Workspace root (real path) and the directory to walk inside it. */
  readonly root: string;
  readonly dir: string;
  readonly signal: AbortSignal;
  /** Keep only files this accepts (by workspace-relative path). */
  readonly accept: (relative: string) => boolean;
  readonly maxFiles: number;
}

export interface WalkResult {
  files: WalkedFile[];
  truncated: boolean;
}

interface IgnoreScope {
  /** Directory (workspace-relative, '' for the root) the rules are relative to. */
  readonly base: string;
  readonly rules: Ignore;
}

function readIgnore(dirAbsolute: string, base: string): IgnoreScope | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(dirAbsolute, '.gitignore'), 'utf8');
  } catch {
    return undefined;
  }
  return { base, rules: ignore().add(text) };
}

const isIgnored = (scopes: IgnoreScope[], relative: string, isDir: boolean): boolean =>
  scopes.some((scope) => {
    const inScope = scope.base === '' ? relative : relative.slice(scope.base.length + 1);
    return scope.rules.ignores(isDir ? `${inScope}/` : inScope);
  });

const toPosix = (p: string) => p.split(path.sep).join('/');

// Directory reads and stats are synchronous: for thousands of small calls they cost a fraction of the
// promise versions, and the walk hands the event loop back every few milliseconds anyway.
const YIELD_EVERY_MS = 10;

export async function walkSourceFiles(options: WalkOptions): Promise<WalkResult> {
  const { root, signal } = options;
  const files: WalkedFile[] = [];
  let truncated = false;
  // .gitignore files between the root and the walked directory apply too.
  const rootScopes: IgnoreScope[] = [];
  const relDir = toPosix(path.relative(root, options.dir));
  const ancestors = relDir
    ? ['', ...relDir.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'))]
    : [''];
  for (const ancestor of ancestors.slice(0, -1)) {
    const scope = readIgnore(path.join(root, ancestor), ancestor);
    if (scope) rootScopes.push(scope);
  }
  let sliceStart = performance.now();
  const pending: { dir: string; scopes: IgnoreScope[] }[] = [{ dir: options.dir, scopes: rootScopes }];
  while (pending.length && !truncated) {
    if (signal.aborted) throw toolgateError('TIMEOUT', 'The walk was cancelled');
    if (performance.now() - sliceStart > YIELD_EVERY_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
    const { dir: dirAbsolute, scopes } = pending.pop()!;
    const base = toPosix(path.relative(root, dirAbsolute));
    let entries: Dirent[];
    try {
      entries = readdirSync(dirAbsolute, { withFileTypes: true });
    } catch {
      continue;
    }
    const own = entries.some((e) => e.name === '.gitignore') ? readIgnore(dirAbsolute, base) : undefined;
    const active = own ? [...scopes, own] : scopes;
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const entry of entries) {
      // Symlinks are skipped outright: following one could leave the workspace or loop.
      if (entry.isSymbolicLink()) continue;
      const relative = base ? `${base}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!HEAVY_DIRS.has(entry.name) && !isIgnored(active, relative, true)) {
          subdirs.push(path.join(dirAbsolute, entry.name));
        }
        continue;
      }
      if (!entry.isFile() || !options.accept(relative) || isIgnored(active, relative, false)) continue;
      const absolute = path.join(dirAbsolute, entry.name);
      const stat = lstatSafe(absolute);
      if (!stat?.isFile()) continue;
      if (files.length >= options.maxFiles) {
        truncated = true;
        break;
      }
      files.push({ path: relative, size: stat.size, mtimeMs: stat.mtimeMs });
    }
    // Reversed onto the stack so directories are visited in name order.
    for (let i = subdirs.length - 1; i >= 0; i--) pending.push({ dir: subdirs[i], scopes: active });
  }
  return { files, truncated };
}

function lstatSafe(file: string) {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}
