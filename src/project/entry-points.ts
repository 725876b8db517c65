// Where a program starts: package.json main/bin/exports, conventional file names, Go `package main` with
// func main, Rust main.rs and bin/, Java `static void main`, Python __main__/manage.py/main.py.
import path from 'node:path';
import type { IndexSnapshot } from '../code/snapshot.js';
import { dirOf, filesNamed, readText, type Inventory, type ProjectContext } from './inventory.js';

export interface EntryPoint {
  path: string;
  reason: string;
}

const CONVENTIONAL = [
  'src/index.ts',
  'src/index.js',
  'src/main.ts',
  'src/main.js',
  'src/server.ts',
  'src/server.js',
  'src/app.ts',
  'src/app.js',
  'index.ts',
  'index.js',
  'server.js',
  'app.js',
  'main.py',
  'app.py',
  'manage.py',
  'wsgi.py',
  'asgi.py',
  'src/main.rs',
  'src/lib.rs',
  'main.go',
];

/** String paths inside a package.json `bin` / `exports` value, however nested. */
function pathsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null) return [];
  return Object.values(value).flatMap(pathsIn);
}

export async function findEntryPoints(
  ctx: ProjectContext,
  inv: Inventory,
  snapshot: IndexSnapshot,
): Promise<EntryPoint[]> {
  const found = new Map<string, string>();
  const add = (file: string, reason: string) => {
    const normal = path.posix.normalize(file).replace(/^\.\//, '');
    if (inv.byPath.has(normal) && !found.has(normal)) found.set(normal, reason);
  };
  for (const manifest of filesNamed(inv, ['package.json'], 2)) {
    let pkg: Record<string, unknown> = {};
    try {
      pkg = JSON.parse((await readText(ctx, manifest)) ?? '{}') as Record<string, unknown>;
    } catch {
      continue;
    }
    const dir = dirOf(manifest);
    const join = (p: string) => (dir === '.' ? p : `${dir}/${p}`);
    for (const key of ['main', 'module', 'bin', 'exports'] as const) {
      for (const p of pathsIn(pkg[key])) add(join(p), `${manifest} "${key}"`);
    }
  }
  for (const file of CONVENTIONAL) add(file, 'conventional entry file');
  for (const file of inv.files) {
    const base = path.posix.basename(file.path);
    if (base === '__main__.py') add(file.path, 'python -m package entry');
    if (
      /(^|\/)src\/bin\/[^/]+\.rs$/.test(file.path) ||
      (base === 'main.rs' && file.path.split('/').length <= 3)
    ) {
      add(file.path, 'Rust binary');
    }
  }
  for (const file of snapshot.files) {
    const hasMain = file.definitions.some(
      (d) => d.name === 'main' && (d.kind === 'function' || d.kind === 'method'),
    );
    if (!hasMain) continue;
    if (file.language === 'go' && file.packageName === 'main')
      add(file.path, 'Go package main with func main');
    if (
      file.language === 'java' &&
      file.definitions.some((d) => d.name === 'main' && /\bstatic\b/.test(d.signature))
    ) {
      add(file.path, 'Java static void main');
    }
  }
  return [...found].map(([p, reason]) => ({ path: p, reason }));
}
