import { chmodSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../../helpers/app.js';
import { fileSession, type FileSession } from '../workspace-helpers.js';

let t: InjectApp;
let s: FileSession;
beforeAll(async () => {
  t = await injectApp();
});
afterAll(() => t.close());

// Each test gets its own file: a file the session wrote and the test then changes on disk would
// (rightly) be refused as changed since read.
let file = 'f0.ts';
const edit = (input: Record<string, unknown>) => s.call('edit_file', { path: file, ...input });
const put = (content: string | Buffer) => {
  file = `f${Math.random().toString(36).slice(2)}.ts`;
  s.put(file, content);
};

describe('edit_file: exact matches', () => {
  beforeAll(async () => {
    s = await fileSession(t);
  });

  it('replaces a unique exact match and returns a unified diff', async () => {
    put('const a = 1;\nconst b = 2;\n');
    const res = await edit({ old_string: 'const b = 2;', new_string: 'const b = 3;' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      path: file,
      replacements: 1,
      strategy: 'exact',
      dryRun: false,
      created: false,
    });
    expect(res.body.data.diff).toContain('-const b = 2;\n+const b = 3;');
    expect(s.text(file)).toBe('const a = 1;\nconst b = 3;\n');
  });

  it('refuses several matches with their line numbers unless replace_all', async () => {
    put('x = 1;\ny = 2;\nx = 1;\n');
    const res = await edit({ old_string: 'x = 1;', new_string: 'x = 9;' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('EDIT_AMBIGUOUS');
    expect(res.body.error.details.lines).toEqual([1, 3]);
    const all = await edit({ old_string: 'x = 1;', new_string: 'x = 9;', replace_all: true });
    expect(all.body.data.replacements).toBe(2);
    expect(s.text(file)).toBe('x = 9;\ny = 2;\nx = 9;\n');
  });

  it('refuses old_string equal to new_string with 400 NO_CHANGES', async () => {
    put('same\n');
    const res = await edit({ old_string: 'same', new_string: 'same' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('NO_CHANGES');
  });

  it('treats $&, $$ and $1 in new_string literally', async () => {
    put('price = X;\n');
    await edit({ old_string: 'X', new_string: "'$&' + '$$' + '$1' + '$`'" });
    expect(s.text(file)).toBe("price = '$&' + '$$' + '$1' + '$`';\n");
  });

  it('dry_run returns the diff and leaves the file alone', async () => {
    put('one\n');
    const res = await edit({ old_string: 'one', new_string: 'two', dry_run: true });
    expect(res.body.data).toMatchObject({ dryRun: true, replacements: 1 });
    expect(res.body.data.diff).toContain('+two');
    expect(s.text(file)).toBe('one\n');
  });

  it('with an empty old_string creates a missing file and fills an empty one, but not a non-empty one', async () => {
    const created = await s.call('edit_file', {
      path: 'new/dir/n.txt',
      old_string: '',
      new_string: 'hello\n',
    });
    expect(created.body.data).toMatchObject({ created: true });
    expect(s.text('new/dir/n.txt')).toBe('hello\n');
    s.put('empty.txt', '');
    await s.call('edit_file', { path: 'empty.txt', old_string: '', new_string: 'filled' });
    expect(s.text('empty.txt')).toBe('filled');
    const refused = await s.call('edit_file', { path: 'empty.txt', old_string: '', new_string: 'again' });
    expect(refused.status).toBe(400);
  });

  it('answers 404 for a missing file with a non-empty old_string', async () => {
    const res = await s.call('edit_file', { path: 'missing.ts', old_string: 'a', new_string: 'b' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('FILE_NOT_FOUND');
  });
});

describe('edit_file: encodings and file properties', () => {
  beforeAll(async () => {
    s = await fileSession(t);
  });

  it('keeps CRLF line endings when old and new use LF', async () => {
    put('a\r\nb\r\nc\r\n');
    const res = await edit({ old_string: 'a\nb\n', new_string: 'a\nB\nextra\n' });
    expect(res.status).toBe(200);
    expect(s.text(file)).toBe('a\r\nB\r\nextra\r\nc\r\n');
  });

  it('keeps a UTF-8 BOM', async () => {
    put('\uFEFFfirst\nsecond\n');
    await edit({ old_string: 'first', new_string: 'erste' });
    expect(s.text(file)).toBe('\uFEFFerste\nsecond\n');
  });

  it('edits multi-byte UTF-8 text and a file without a trailing newline', async () => {
    put('héllo wörld 🎉\nnaïve');
    await edit({ old_string: 'naïve', new_string: 'naïf 日本' });
    expect(s.text(file)).toBe('héllo wörld 🎉\nnaïf 日本');
  });

  it('keeps the file mode', async () => {
    s.put('run.sh', '#!/bin/sh\necho hi\n');
    chmodSync(path.join(s.dir, 'run.sh'), 0o755);
    await s.call('edit_file', { path: 'run.sh', old_string: 'echo hi', new_string: 'echo bye' });
    expect(statSync(path.join(s.dir, 'run.sh')).mode & 0o777).toBe(0o755);
  });

  it('edits a line far longer than the read cut-off', async () => {
    const long = 'x'.repeat(50_000);
    put(`start ${long} end\n`);
    await edit({ old_string: `start ${long}`, new_string: 'short' });
    expect(s.text(file)).toBe('short end\n');
  });

  it('refuses binary files', async () => {
    s.put('bin.dat', Buffer.from([0x41, 0x00, 0x42]));
    const res = await s.call('edit_file', { path: 'bin.dat', old_string: 'A', new_string: 'C' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('BINARY_FILE');
  });
});
