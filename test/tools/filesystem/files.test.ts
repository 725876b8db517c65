import { chmodSync, mkdirSync, symlinkSync, utimesSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, tempDir, type InjectApp } from '../../helpers/app.js';
import { fileSession, outsideDir, type FileSession } from '../workspace-helpers.js';

let t: InjectApp;
let s: FileSession;
let outside: string;
beforeAll(async () => {
  t = await injectApp();
  s = await fileSession(t);
  outside = outsideDir({ 'x.ts': 'outside' });
});
afterAll(async () => {
  rmSync(outside, { recursive: true, force: true });
  await t.close();
});

describe('read_file', () => {
  it('reads empty, CRLF, BOM and no-trailing-newline files', async () => {
    s.put('empty.txt', '');
    expect((await s.call('read_file', { path: 'empty.txt' })).body.data).toMatchObject({
      content: '',
      totalLines: 0,
    });
    s.put('crlf.txt', 'a\r\nb\r\n');
    expect((await s.call('read_file', { path: 'crlf.txt' })).body.data).toMatchObject({ totalLines: 2 });
    s.put('bom.txt', '\uFEFFhello\nworld');
    expect((await s.call('read_file', { path: 'bom.txt' })).body.data).toMatchObject({
      content: 'hello\nworld',
      totalLines: 2,
    });
  });

  it('decodes multi-byte UTF-8 split across stream chunks', async () => {
    // > 4 MiB is streamed in 1 MiB chunks; the leading "x" puts every chunk boundary inside an "é".
    s.put('utf8.txt', `x${'é'.repeat(3 * 1024 * 1024)}\n`);
    const res = await s.call('read_file', { path: 'utf8.txt', limit: 1 });
    expect(res.body.data.content.includes('\uFFFD')).toBe(false);
    expect(res.body.data.content.startsWith('xéé')).toBe(true);
  });

  it('stops at the output budget with truncated and nextOffset', async () => {
    s.put('wide.txt', `${'y'.repeat(1500)}\n`.repeat(400));
    const res = await s.call('read_file', { path: 'wide.txt' });
    expect(res.body.data.truncated).toBe(true);
    expect(res.body.data.endLine).toBeLessThan(400);
    expect(res.body.data.nextOffset).toBe(res.body.data.endLine + 1);
  });

  it('refuses binary files and files over the read limit with a hint', async () => {
    s.put('bin.dat', Buffer.from([1, 0, 2]));
    expect((await s.call('read_file', { path: 'bin.dat' })).body.error.code).toBe('BINARY_FILE');
  });
});

describe('a 50 MB file', () => {
  it('is refused by read_file and edit_file at the default limits, described by file_info, read in windows when allowed', async () => {
    const line = 'the quick brown fox jumps over the lazy dog 0123456789 abcdefghij\n';
    const count = Math.ceil((50 * 1024 * 1024) / line.length);
    s.put('big/huge.log', `${line.repeat(count)}last line`);
    const read = await s.call('read_file', { path: 'big/huge.log' });
    expect(read.status).toBe(413);
    expect(read.body.error.suggestion).toContain('grep');
    const edit = await s.call('edit_file', {
      path: 'big/huge.log',
      old_string: 'last line',
      new_string: 'x',
    });
    expect(edit.status).toBe(413);
    const info = await s.call('file_info', { path: 'big/huge.log' });
    expect(info.body.data).toMatchObject({
      type: 'file',
      lines: count + 1,
      binary: false,
      lineEndings: 'lf',
    });

    const configFile = path.join(tempDir(), 'config.json');
    writeFileSync(configFile, JSON.stringify({ limits: { readMaxBytes: 64 * 1024 * 1024 } }));
    const roomy = await injectApp({ TOOLGATE_CONFIG: configFile });
    try {
      const other = await fileSession(roomy);
      other.put('huge.log', `${line.repeat(count)}last line`);
      const tail = await other.call('read_file', { path: 'huge.log', offset: count, limit: 10 });
      expect(tail.body.data).toMatchObject({
        totalLines: count + 1,
        content: `${line.trimEnd()}\nlast line`,
      });
    } finally {
      await roomy.close();
    }
  }, 60_000);
});

describe('file_info', () => {
  it('describes text, binary, directories and symlinks, with the sha256 read_file reports', async () => {
    s.put('info/code.ts', 'a\r\nb\r\n');
    chmodSync(path.join(s.dir, 'info/code.ts'), 0o640);
    const info = await s.call('file_info', { path: 'info/code.ts' });
    const read = await s.call('read_file', { path: 'info/code.ts' });
    expect(info.body.data).toMatchObject({
      path: 'info/code.ts',
      type: 'file',
      size: 6,
      lines: 2,
      binary: false,
      mime: 'text/x-typescript',
      lineEndings: 'crlf',
      bom: false,
      mode: '0640',
      sha256: read.body.data.sha256,
    });
    s.put('info/img.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
    expect((await s.call('file_info', { path: 'info/img.png' })).body.data).toMatchObject({
      binary: true,
      mime: 'image/png',
      lines: null,
    });
    expect((await s.call('file_info', { path: 'info' })).body.data).toMatchObject({
      type: 'directory',
      sha256: null,
    });
    symlinkSync(outside, path.join(s.dir, 'info/out'));
    const link = await s.call('file_info', { path: 'info/out' });
    expect(link.body.data).toMatchObject({ type: 'symlink', linkTarget: null });
    expect(JSON.stringify(link.body)).not.toContain(outside);
    expect((await s.call('file_info', { path: 'info/out/x.ts' })).status).toBe(403);
  });
});

describe('glob', () => {
  let g: FileSession;
  beforeAll(async () => {
    g = await fileSession(t);
    g.put('.gitignore', 'dist/\n*.tmp\n');
    g.put('src/old.ts', 'o');
    g.put('src/new.ts', 'n');
    g.put('src/deep/mid.ts', 'm');
    g.put('src/skip.tmp', 't');
    g.put('dist/out.ts', 'd');
    g.put('.hidden/h.ts', 'h');
    const now = Date.now() / 1000;
    utimesSync(path.join(g.dir, 'src/old.ts'), now - 300, now - 300);
    utimesSync(path.join(g.dir, 'src/deep/mid.ts'), now - 200, now - 200);
    utimesSync(path.join(g.dir, 'src/new.ts'), now - 100, now - 100);
    utimesSync(path.join(g.dir, '.hidden/h.ts'), now - 400, now - 400);
    mkdirSync(path.join(g.dir, 'links'));
    symlinkSync(outside, path.join(g.dir, 'links/out'));
    symlinkSync(path.join(g.dir, 'src'), path.join(g.dir, 'links/in'));
  });

  it('lists matches newest first, respecting .gitignore and never following symlinks', async () => {
    const res = await g.call('glob', { pattern: '**/*.ts' });
    expect(res.body.data).toEqual({
      path: '.',
      files: ['src/new.ts', 'src/deep/mid.ts', 'src/old.ts', '.hidden/h.ts'],
      total: 4,
      truncated: false,
    });
  });

  it('matches bare names at any depth, pages with limit and offset, and can include ignored files', async () => {
    const first = await g.call('glob', { pattern: '*.ts', path: 'src', limit: 2 });
    expect(first.body.data).toMatchObject({
      files: ['src/new.ts', 'src/deep/mid.ts'],
      truncated: true,
      nextOffset: 2,
    });
    const rest = await g.call('glob', { pattern: '*.ts', path: 'src', limit: 2, offset: 2 });
    expect(rest.body.data).toMatchObject({ files: ['src/old.ts'], truncated: false });
    const all = await g.call('glob', { pattern: '**/*', include_ignored: true });
    expect(all.body.data.files).toEqual(
      expect.arrayContaining(['dist/out.ts', 'src/skip.tmp', '.gitignore']),
    );
  });

  it('refuses patterns and paths that leave the workspace', async () => {
    expect((await g.call('glob', { pattern: '../**' })).status).toBe(400);
    expect((await g.call('glob', { pattern: '*', path: 'links/out' })).status).toBe(403);
  });
});

describe('list_directory', () => {
  it('lists to a depth, does not enter heavy folders, applies ignore globs and renders a tree', async () => {
    const l = await fileSession(t);
    l.put('src/a.ts', 'aa');
    l.put('src/lib/b.ts', 'b');
    l.put('src-old/c.ts', 'c');
    l.put('node_modules/pkg/index.js', 'x');
    l.put('notes.tmp', 't');
    const res = await l.call('list_directory', { depth: 3, ignore: ['*.tmp'] });
    expect(res.body.data.entries.map((e: { path: string }) => e.path)).toEqual([
      'node_modules',
      'src',
      'src/a.ts',
      'src/lib',
      'src/lib/b.ts',
      'src-old',
      'src-old/c.ts',
    ]);
    expect(res.body.data.skipped).toEqual(['node_modules']);
    const rendered = await t.http
      .post(`/v1/sessions/${l.id}/calls`)
      .set('authorization', `Bearer ${l.token}`)
      .send({ calls: [{ name: 'list_directory', arguments: { depth: 3 } }] });
    expect(JSON.stringify(rendered.body)).toContain('node_modules/ (not listed)');
  });

  it('caps the number of entries with truncated', async () => {
    const configFile = path.join(tempDir(), 'config.json');
    writeFileSync(configFile, JSON.stringify({ limits: { maxEntries: 5 } }));
    const small = await injectApp({ TOOLGATE_CONFIG: configFile });
    try {
      const l = await fileSession(small);
      for (let i = 0; i < 8; i++) l.put(`f${i}.txt`, 'x');
      const res = await l.call('list_directory', {});
      expect(res.body.data).toMatchObject({ truncated: true });
      expect(res.body.data.entries).toHaveLength(5);
    } finally {
      await small.close();
    }
  });
});
