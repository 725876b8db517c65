// Both grep engines, the glob walk and the source walk on one fixture tree with nested .gitignore files,
// through a real session runtime (no HTTP): they leave out exactly what the .gitignore policy says
// (docs/search.md), and a .gitignore above the workspace root never applies.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GrepArgs } from '../../src/runtime/ops/walk.js';
import type { Workspace } from '../../src/runtime/workspace.js';
import { needs } from '../helpers/requires.js';
import { workspaceAt } from '../helpers/runtime.js';

const FILES: Record<string, string> = {
  '.gitignore': 'dist/\n*.log\n!keep.log\n/top.txt\n',
  'top.txt': 'needle\n',
  'src/top.txt': 'needle\n',
  'src/a.ts': 'const needle = 1;\n',
  'src/app.log': 'needle\n',
  'src/keep.log': 'needle\n',
  'src/dist/out.js': 'needle\n',
  'dist/bundle.js': 'needle\n',
  'dist/sub/x.js': 'needle\n',
  'dist/sub/x.log': 'needle\n',
  'pkg/.gitignore': 'gen/\n/local.txt\nnested/skip.ts\n!important.log\n',
  'pkg/local.txt': 'needle\n',
  'pkg/lib/local.txt': 'needle\n',
  'pkg/gen/g.ts': 'needle\n',
  'pkg/important.log': 'needle\n',
  'pkg/nested/skip.ts': 'needle\n',
  'pkg/nested/keep.ts': 'needle\n',
  'pkg/nested/deep/skip.ts': 'needle\n',
  'pkg/nested/deep/.gitignore': '!skip.ts\n*.md\n',
  'pkg/nested/deep/notes.md': 'needle\n',
  'notes.md': 'needle\n',
  '.git/config': 'needle\n',
  'node_modules/m/index.js': 'needle\n',
};

let outer: string;
let root: string;
let workspace: Workspace;
let close: () => Promise<void>;

beforeAll(() => {
  // The workspace sits in a directory whose .gitignore would hide every .md file: it must not apply.
  outer = mkdtempSync(path.join(tmpdir(), 'tg-search-'));
  writeFileSync(path.join(outer, '.gitignore'), '*.md\nsrc/\n');
  root = path.join(outer, 'ws');
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  ({ workspace, close } = workspaceAt(root));
});
afterAll(async () => {
  await close();
  rmSync(outer, { recursive: true, force: true });
});

const grep = async (engine: 'ripgrep' | 'javascript', args: Partial<GrepArgs>) => {
  const { result } = await workspace.call('grep', {
    path: '.',
    pattern: 'needle',
    fixedStrings: false,
    caseInsensitive: false,
    multiline: false,
    context: 0,
    globs: [],
    maxHits: 1000,
    engine,
    ...args,
  });
  expect(result.engine).toBe(engine);
  return [...new Set(result.hits.map((hit) => hit.path))].sort();
};

// Without ripgrep the JavaScript engine is checked alone against the expected files.
const noRipgrep = needs('ripgrep', 'the ripgrep half of the .gitignore policy tests');

const bothEngines = async (args: Partial<GrepArgs>) => {
  const js = await grep('javascript', args);
  if (!noRipgrep) expect(await grep('ripgrep', args)).toEqual(js);
  return js;
};

/** What the policy keeps under the root (node_modules is not a .gitignore matter for grep and glob). */
const KEPT_FROM_ROOT = [
  'node_modules/m/index.js',
  'notes.md',
  'pkg/important.log',
  'pkg/lib/local.txt',
  'pkg/nested/deep/skip.ts',
  'pkg/nested/keep.ts',
  'src/a.ts',
  'src/keep.log',
  'src/top.txt',
];

describe('one .gitignore policy for every walk', () => {
  it('both grep engines keep the same files from the workspace root', async () => {
    expect(await bothEngines({})).toEqual(KEPT_FROM_ROOT);
  });

  it('applies the .gitignore files above a searched subdirectory, for both engines', async () => {
    expect(await bothEngines({ path: 'pkg/nested' })).toEqual([
      'pkg/nested/deep/skip.ts',
      'pkg/nested/keep.ts',
    ]);
    expect(await bothEngines({ path: 'pkg/nested/deep' })).toEqual(['pkg/nested/deep/skip.ts']);
    expect(await bothEngines({ path: 'src' })).toEqual(['src/a.ts', 'src/keep.log', 'src/top.txt']);
  });

  it('searches an ignored directory named outright, still judging what is below it', async () => {
    expect(await bothEngines({ path: 'dist' })).toEqual(['dist/bundle.js', 'dist/sub/x.js']);
    expect(await bothEngines({ path: 'pkg/gen' })).toEqual(['pkg/gen/g.ts']);
  });

  it('agrees with globs and on a single ignored file', async () => {
    // Include globs override a file's own .gitignore rule (as in rg); ignored directories stay closed.
    expect(await bothEngines({ globs: ['*.ts'] })).toEqual([
      'pkg/nested/deep/skip.ts',
      'pkg/nested/keep.ts',
      'pkg/nested/skip.ts',
      'src/a.ts',
    ]);
    expect(await bothEngines({ globs: ['!pkg'] })).toEqual(
      KEPT_FROM_ROOT.filter((f) => !f.startsWith('pkg/')),
    );
    expect(await bothEngines({ path: 'src/app.log' })).toEqual(['src/app.log']);
  });

  it('glob keeps the same files, and all of them with include_ignored', async () => {
    const glob = async (dir: string, includeIgnored: boolean) =>
      (await workspace.call('glob', { path: dir, pattern: '**', includeIgnored })).result.found
        .map((f) => f.path)
        .filter((f) => !f.endsWith('.gitignore'))
        .sort();
    expect(await glob('.', false)).toEqual(KEPT_FROM_ROOT);
    expect(await glob('pkg/nested', false)).toEqual(['pkg/nested/deep/skip.ts', 'pkg/nested/keep.ts']);
    expect(await glob('.', true)).toEqual(
      Object.keys(FILES)
        .filter((f) => !f.startsWith('.git/') && !f.endsWith('.gitignore'))
        .sort(),
    );
  });

  it('the source walk of the code index and project analysis also skips the heavy folders', async () => {
    const walked = async (dir: string) =>
      (await workspace.call('walkSource', { path: dir, filter: {}, maxFiles: 1000 })).result.files
        .map((f) => f.path)
        .filter((f) => !f.endsWith('.gitignore'));
    expect((await walked('.')).sort()).toEqual(KEPT_FROM_ROOT.filter((f) => !f.startsWith('node_modules/')));
    expect(await walked('pkg/nested')).toEqual(['pkg/nested/keep.ts', 'pkg/nested/deep/skip.ts']);
  });
});
