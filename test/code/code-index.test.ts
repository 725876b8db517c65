import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CodeIndex } from '../../src/code/code-index.js';
import { findCycles } from '../../src/code/dependency-graph.js';
import { extractFile } from '../../src/code/extract.js';
import { pageRank } from '../../src/code/pagerank.js';
import { GrammarLoader } from '../../src/code/parser.js';
import { fuzzyScore } from '../../src/code/fuzzy.js';
import { tempDir } from '../helpers/app.js';
import { workspaceAt } from '../helpers/runtime.js';

const signal = new AbortController().signal;

describe('tag extraction', () => {
  const grammars = new GrammarLoader();

  it('keeps signatures right after non-ASCII text (string indices, not bytes)', async () => {
    const source =
      '// héllo wörld ✓\n\n/** Grüße. */\nexport function grüß(name: string): string {\n  return `✓ ${name}`;\n}\n';
    const summary = extractFile('a.ts', source, await grammars.load('typescript'));
    expect(summary.definitions).toEqual([
      {
        name: 'grüß',
        kind: 'function',
        line: 4,
        startLine: 4,
        endLine: 6,
        signature: 'function grüß(name: string): string',
        doc: 'Grüße.',
        exported: true,
      },
    ]);
  });

  it('tells methods from functions by their container in every language', async () => {
    const cases: [Parameters<GrammarLoader['load']>[0], string, string][] = [
      ['python', 'class A:\n    def m(self):\n        pass\n\ndef f():\n    pass\n', 'A.m f'],
      ['java', 'class A { void m() {} }\n', 'A.m'],
      ['rust', 'struct A;\nimpl A { fn m(&self) {} }\nfn f() {}\n', 'A.m f'],
      ['go', 'package p\ntype A struct{}\nfunc (a *A) M() {}\nfunc F() {}\n', 'A.M F'],
      ['javascript', 'class A { m() {} }\nfunction f() {}\n', 'A.m f'],
    ];
    for (const [language, source, expected] of cases) {
      const summary = extractFile('x', source, await grammars.load(language));
      const callables = summary.definitions
        .filter((d) => d.kind === 'method' || d.kind === 'function')
        .map((d) => (d.container ? `${d.container}.${d.name}` : d.name))
        .join(' ');
      expect(callables, language).toBe(expected);
    }
  });

  it('skips a reference at the name of a definition and keeps the call', async () => {
    const summary = extractFile('a.py', 'def f():\n    return f()\n', await grammars.load('python'));
    expect(summary.references).toEqual([{ name: 'f', kind: 'call', line: 2, column: 12 }]);
  });
});

describe('graph algorithms', () => {
  it('pageRank ranks the most referenced node first and sums to 1', () => {
    const graph = new Map([
      ['a', new Map([['c', 1]])],
      ['b', new Map([['c', 1]])],
      ['c', new Map([['a', 1]])],
    ]);
    const rank = pageRank(['a', 'b', 'c'], graph);
    expect([...rank].sort((x, y) => y[1] - x[1]).map(([n]) => n)).toEqual(['c', 'a', 'b']);
    expect([...rank.values()].reduce((s, v) => s + v, 0)).toBeCloseTo(1, 6);
  });

  it('pageRank personalisation lifts the focus node', () => {
    const graph = new Map([
      ['a', new Map([['c', 1]])],
      ['b', new Map([['c', 1]])],
    ]);
    const rank = pageRank(['a', 'b', 'c'], graph, { personalization: new Map([['b', 1]]) });
    expect(rank.get('b')!).toBeGreaterThan(rank.get('a')!);
  });

  it('findCycles reports each strongly connected component once as a closed path', () => {
    const edges = [
      { from: 'a', to: 'b' },
      { from: 'b', to: 'a' },
      { from: 'c', to: 'd' },
      { from: 'd', to: 'e' },
      { from: 'e', to: 'c' },
      { from: 'e', to: 'f' },
    ];
    expect(findCycles(['a', 'b', 'c', 'd', 'e', 'f'], edges)).toEqual([
      ['a', 'b', 'a'],
      ['c', 'd', 'e', 'c'],
    ]);
    expect(findCycles(['x', 'y'], [{ from: 'x', to: 'y' }])).toEqual([]);
  });

  it('fuzzyScore orders exact > prefix > substring > subsequence', () => {
    const scores = ['parse', 'parseFile', 'reparse', 'pAbcRse', 'other'].map((n) => fuzzyScore(n, 'parse'));
    expect(scores[0]).toBeGreaterThan(scores[1]);
    expect(scores[1]).toBeGreaterThan(scores[2]);
    expect(scores[2]).toBeGreaterThan(scores[3]);
    expect(scores[4]).toBe(0);
  });
});

describe('CodeIndex', () => {
  const root = tempDir('toolgate-index-');
  // The index reads through a session runtime; here an unisolated one on the temp directory.
  const ws = workspaceAt(root);
  afterAll(async () => {
    await ws.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('honours nested .gitignore files and parses only what changed', async () => {
    mkdirSync(path.join(root, 'pkg/gen'), { recursive: true });
    writeFileSync(path.join(root, 'a.ts'), 'export function a() {}\n');
    writeFileSync(path.join(root, 'pkg/b.ts'), 'export function b() {}\n');
    writeFileSync(path.join(root, 'pkg/gen/c.ts'), 'export function c() {}\n');
    writeFileSync(path.join(root, 'pkg/.gitignore'), 'gen/\n');
    const index = new CodeIndex();
    const first = await index.snapshot('s1', ws.workspace, signal);
    expect(first.files.map((f) => f.path)).toEqual(['a.ts', 'pkg/b.ts']);
    expect(first.stats).toMatchObject({ parsed: 2, reused: 0 });

    const again = await index.snapshot('s1', ws.workspace, signal);
    expect(again).toBe(first);
    expect(again.stats).toMatchObject({ parsed: 0, reused: 2 });

    writeFileSync(path.join(root, 'a.ts'), 'export function a2() {}\n');
    utimesSync(path.join(root, 'a.ts'), new Date(), new Date(Date.now() + 10_000));
    const changed = await index.snapshot('s1', ws.workspace, signal);
    expect(changed.stats).toMatchObject({ parsed: 1, reused: 1 });
    expect(changed.definitionsOf('a2')).toHaveLength(1);

    index.forget('s1');
    expect((await index.snapshot('s1', ws.workspace, signal)).stats.parsed).toBe(2);
  });

  it('parses a cold tree in worker threads with the same result as in-thread', async () => {
    const tree = tempDir('toolgate-pool-');
    const treeWs = workspaceAt(tree);
    for (let i = 0; i < 60; i++) {
      writeFileSync(
        path.join(tree, `m${i}.ts`),
        `import { f${(i + 1) % 60} } from './m${(i + 1) % 60}';\nexport function f${i}() { return f${(i + 1) % 60}; }\n`,
      );
    }
    const pooled = new CodeIndex({ workers: 2 });
    const single = new CodeIndex({ workers: 1 });
    try {
      const a = await pooled.snapshot('p', treeWs.workspace, signal);
      const b = await single.snapshot('p', treeWs.workspace, signal);
      expect(a.stats.parsed).toBe(60);
      expect(a.files).toEqual(b.files);
      expect(a.definitionsOf('f42')[0].file.path).toBe('m42.ts');
    } finally {
      await pooled.close();
      await treeWs.close();
      rmSync(tree, { recursive: true, force: true });
    }
  });

  it('stops when the signal is aborted', async () => {
    const aborted = AbortSignal.abort(new Error('stop'));
    await expect(new CodeIndex().snapshot('s2', ws.workspace, aborted)).rejects.toThrow('stop');
  });
});
