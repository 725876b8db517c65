import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { needs } from '../../helpers/requires.js';
import { toolContext, type ToolHarness, type ToolSession } from '../../helpers/tool-context.js';
import { outsideDir } from '../workspace-helpers.js';

// Without ripgrep the JavaScript engine is tested alone, and the comparisons between the two skip.
const noRipgrep = needs('ripgrep', "grep's ripgrep engine and its comparisons with the JavaScript engine");
const ENGINES = noRipgrep ? ['javascript'] : ['ripgrep', 'javascript'];

// grep's execute runs directly (no HTTP): `{ data }` or `{ error }` (a ToolgateError, whose statusCode is
// the catalog's HTTP status for it).
let t: ToolHarness;
let s: ToolSession;
let outside: string;

beforeAll(async () => {
  t = await toolContext();
  s = await t.session();
  outside = outsideDir({ 'secret.ts': 'const needle = "outside";\n' });
  s.put(
    'src/a.ts',
    'import x from "y";\nfunction needle() {\n  return 1;\n}\n// TODO: Needle again\nconst z = 2;\n',
  );
  s.put('src/b.ts', 'export const needle = 42;\n');
  s.put('src/crlf.ts', 'first\r\nneedle here\r\nlast\r\n');
  s.put('src/utf8.md', 'héllo needle wörld 🎉\nnaïve\n');
  s.put('src/long.txt', `${'x'.repeat(5000)} needle\n`);
  s.put('src/deep/nested/c.ts', 'needle in nested\n');
  s.put('.gitignore', 'ignored/\n*.log\n');
  s.put('ignored/x.ts', 'needle ignored\n');
  s.put('app.log', 'needle in log\n');
  s.put('.hidden/h.ts', 'needle hidden\n');
  s.put('.git/config', 'needle git\n');
  s.put('sub/.gitignore', 'private.txt\n');
  s.put('sub/private.txt', 'needle private\n');
  s.put('sub/public.txt', 'needle public\n');
  s.put('bin.dat', Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from('needle binary\n')]));
  s.put('multi.txt', 'begin block\nmiddle\nend block\nother\n');
  // NUL after the first 8 KiB but inside ripgrep's first 64 KiB buffer: binary for both engines.
  s.put(
    'late-nul.txt',
    Buffer.concat([Buffer.from('needle early\n'), Buffer.alloc(20_000, 0x61), Buffer.from([0])]),
  );
  symlinkSync(outside, path.join(s.dir, 'link-out'));
  symlinkSync(path.join(s.dir, 'src'), path.join(s.dir, 'link-in'));
});
afterAll(async () => {
  rmSync(outside, { recursive: true, force: true });
  await t.close();
});

const grep = (input: Record<string, unknown>) => s.attempt('grep', input);

describe('grep', () => {
  it('finds matches sorted by path and line, skipping ignored, binary, .git and symlinked entries', async () => {
    const res = await grep({ pattern: 'needle' });
    expect(res.error).toBeUndefined();
    const paths = [...new Set(res.data.matches.map((m: { path: string }) => m.path))];
    expect(paths).toEqual([
      '.hidden/h.ts',
      'src/a.ts',
      'src/b.ts',
      'src/crlf.ts',
      'src/deep/nested/c.ts',
      'src/long.txt',
      'src/utf8.md',
      'sub/public.txt',
    ]);
    expect(res.data.matches[1]).toEqual({ path: 'src/a.ts', line: 2, text: 'function needle() {' });
  });

  it('reports CRLF lines without the carriage return and cuts long lines', async () => {
    const res = await grep({ pattern: 'needle', path: 'src', glob: '*.{ts,txt}' });
    const crlf = res.data.matches.find((m: { path: string }) => m.path === 'src/crlf.ts');
    expect(crlf).toEqual({ path: 'src/crlf.ts', line: 2, text: 'needle here' });
    const long = res.data.matches.find((m: { path: string }) => m.path === 'src/long.txt');
    expect(long.text).toMatch(/… \[line truncated: 3007 more chars\]$/);
  });

  it('supports case-insensitive, fixed strings, context and the other output modes', async () => {
    const ci = await grep({ pattern: 'NEEDLE', path: 'src/a.ts', case_insensitive: true });
    expect(ci.data.matches.map((m: { line: number }) => m.line)).toEqual([2, 5]);
    const fixed = await grep({ pattern: 'needle()', fixed_strings: true });
    expect(fixed.data.matches).toEqual([{ path: 'src/a.ts', line: 2, text: 'function needle() {' }]);
    const ctx = await grep({ pattern: 'return', path: 'src/a.ts', context: 1 });
    expect(ctx.data.matches).toEqual([
      { path: 'src/a.ts', line: 2, text: 'function needle() {', context: true },
      { path: 'src/a.ts', line: 3, text: '  return 1;' },
      { path: 'src/a.ts', line: 4, text: '}', context: true },
    ]);
    const files = await grep({ pattern: 'needle', path: 'src', output_mode: 'files_with_matches' });
    expect(files.data.files).toContain('src/deep/nested/c.ts');
    const counts = await grep({
      pattern: 'eedle',
      path: 'src',
      output_mode: 'count',
      case_insensitive: true,
    });
    expect(counts.data.counts).toContainEqual({ path: 'src/a.ts', count: 2 });
  });

  it('pages with limit, truncated and nextOffset', async () => {
    const first = await grep({ pattern: 'needle', limit: 3 });
    expect(first.data).toMatchObject({ truncated: true, nextOffset: 3, totalMatches: 8 });
    const second = await grep({ pattern: 'needle', limit: 100, offset: 3 });
    expect(second.data.matches).toHaveLength(5);
    expect(second.data.truncated).toBe(false);
  });

  it('matches across lines in multiline mode', async () => {
    const res = await grep({ pattern: 'begin.*end', path: 'multi.txt', multiline: true });
    expect(res.data.matches).toEqual([
      { path: 'multi.txt', line: 1, text: 'begin block\nmiddle\nend block' },
    ]);
  });

  it('rejects an invalid regex with 400 INVALID_REGEX and the engine message', async () => {
    for (const engine of ENGINES) {
      const res = await grep({ pattern: 'foo(', engine });
      expect(res.error?.statusCode).toBe(400);
      expect(res.error.code).toBe('INVALID_REGEX');
      expect(res.error.message.length).toBeGreaterThan(20);
    }
  });

  it('answers a pattern holding a NUL byte with a clear 400 on every engine (the fuzzer found a 500)', async () => {
    for (const engine of ENGINES) {
      const res = await grep({ pattern: 'a\u0000b', engine });
      expect(res.error?.statusCode ?? 200, engine).toBeLessThan(500);
    }
    const ripgrep = ENGINES.includes('ripgrep') ? await grep({ pattern: '\u0000', engine: 'ripgrep' }) : null;
    if (ripgrep) expect(ripgrep.error).toMatchObject({ code: 'INVALID_REGEX', statusCode: 400 });
  });

  it('refuses paths outside the workspace, also through a symlink', async () => {
    expect((await grep({ pattern: 'x', path: '../' })).error?.statusCode).toBe(403);
    expect((await grep({ pattern: 'needle', path: 'link-out' })).error?.statusCode).toBe(403);
  });

  it('renders path:line: text for an LLM', async () => {
    const text = await s.rendered('grep', { pattern: 'return', path: 'src/a.ts', context: 1 });
    expect(text).toContain('src/a.ts:3:   return 1;');
  });
});

describe('grep engines agree', () => {
  const queries: Record<string, unknown>[] = [
    { pattern: 'needle' },
    { pattern: 'NEEDLE', case_insensitive: true },
    { pattern: 'needle()', fixed_strings: true },
    { pattern: 'n[e]+dle\\s', path: 'src' },
    { pattern: 'needle', glob: '*.ts' },
    { pattern: 'needle', glob: '!src' },
    { pattern: 'return|TODO', context: 2 },
    { pattern: 'needle', output_mode: 'files_with_matches' },
    { pattern: 'e', output_mode: 'count' },
    { pattern: 'begin.*?end', multiline: true },
    { pattern: 'needle', limit: 2, offset: 1 },
    { pattern: 'needle', path: 'src/crlf.ts' },
    { pattern: '^const', path: 'src' },
    { pattern: 'block$' },
    { pattern: 'needle', path: 'bin.dat' },
    { pattern: 'needle', path: 'late-nul.txt' },
    // files_with_matches and count come from per-file counts, not hits: the same data either way.
    { pattern: 'needle', output_mode: 'files_with_matches', path: 'src/crlf.ts' },
    { pattern: 'NEEDLE', output_mode: 'count', case_insensitive: true, glob: '*.ts' },
    { pattern: 'e', output_mode: 'count', limit: 2, offset: 1 },
    { pattern: 'needle', output_mode: 'files_with_matches', path: 'bin.dat' },
    { pattern: 'begin.*?end', output_mode: 'count', multiline: true },
    // Pages that end inside a file, with context and globs: ripgrep sends hits for the page's files only.
    { pattern: 'e', limit: 3, offset: 2, context: 1 },
    { pattern: 'needle', glob: '*.ts', limit: 1, offset: 2 },
    { pattern: 'e', limit: 5, offset: 40 },
    { pattern: 'e', limit: 4, offset: 1000 },
  ];
  it('counts the same matches in every output mode', async () => {
    for (const engine of ENGINES) {
      const content = await grep({ pattern: 'e', limit: 1, engine });
      const count = await grep({ pattern: 'e', output_mode: 'count', engine });
      const files = await grep({ pattern: 'e', output_mode: 'files_with_matches', engine });
      expect(count.data.totalMatches).toBe(content.data.totalMatches);
      expect(files.data.totalMatches).toBe(content.data.totalMatches);
      expect(files.data.files).toEqual(count.data.counts.map((c: { path: string }) => c.path));
    }
  });

  it('pages through every match: the pages joined equal one page holding them all', async () => {
    for (const engine of ENGINES) {
      const all = await grep({ pattern: 'e', context: 1, limit: 5000, engine });
      const joined: unknown[] = [];
      let offset: number | undefined = 0;
      while (offset !== undefined) {
        const res = await grep({ pattern: 'e', context: 1, limit: 3, offset, engine });
        expect(res.data.totalMatches).toBe(all.data.totalMatches);
        joined.push(...res.data.matches);
        offset = res.data.nextOffset;
      }
      expect(joined).toEqual(all.data.matches);
    }
  });

  it.skipIf(noRipgrep).each(queries)(
    'ripgrep and the JavaScript engine return the same data for %j',
    async (query) => {
      const rg = await grep({ ...query, engine: 'ripgrep' });
      const js = await grep({ ...query, engine: 'javascript' });
      expect(rg.error).toBeUndefined();
      expect(js.error).toBeUndefined();
      expect({ ...js.data, engine: 'x' }).toEqual({ ...rg.data, engine: 'x' });
      expect(rg.data.engine).toBe('ripgrep');
      expect(js.data.engine).toBe('javascript');
    },
  );
});

describe('grep over a large file', () => {
  it('searches a 50 MB file with both engines', async () => {
    const line = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod\n';
    const count = Math.ceil((50 * 1024 * 1024) / line.length);
    mkdirSync(path.join(s.dir, 'big'), { recursive: true });
    writeFileSync(path.join(s.dir, 'big/huge.txt'), `${line.repeat(count)}the needle at the end\n`);
    for (const engine of ENGINES) {
      const res = await grep({ pattern: 'needle', path: 'big', engine });
      expect(res.data.matches).toEqual([
        { path: 'big/huge.txt', line: count + 1, text: 'the needle at the end' },
      ]);
    }
  }, 30_000);
});
