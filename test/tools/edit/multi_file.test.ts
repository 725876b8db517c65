import { existsSync, readFileSync, symlinkSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../../helpers/app.js';
import { fileSession, outsideDir, type FileSession } from '../workspace-helpers.js';

let t: InjectApp;
let s: FileSession;
beforeAll(async () => {
  t = await injectApp();
  s = await fileSession(t);
});
afterAll(() => t.close());

describe('multi_edit', () => {
  it('applies edits in order and writes once', async () => {
    s.put('me.ts', 'let a = 1;\nlet b = 2;\n');
    const res = await s.call('multi_edit', {
      path: 'me.ts',
      edits: [
        { old_string: 'let a = 1;', new_string: 'const a = 1;' },
        { old_string: 'const a = 1;\nlet b', new_string: 'const a = 1;\nconst b' },
      ],
    });
    expect(res.body.data).toMatchObject({ replacements: 2, strategies: ['exact', 'exact'] });
    expect(s.text('me.ts')).toBe('const a = 1;\nconst b = 2;\n');
  });

  it('writes nothing when one edit fails, and names it', async () => {
    s.put('rb.ts', 'x\ny\n');
    const res = await s.call('multi_edit', {
      path: 'rb.ts',
      edits: [
        { old_string: 'x', new_string: 'X' },
        { old_string: 'not there', new_string: 'z' },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'EDIT_NOT_FOUND', details: { edit: 2 } });
    expect(res.body.error.message).toContain('edit 2 of 2');
    expect(s.text('rb.ts')).toBe('x\ny\n');
  });
});

describe('apply_patch', () => {
  it('adds, modifies, renames and deletes files in one patch, keeping CRLF', async () => {
    s.put('ap/keep.ts', 'one\r\ntwo\r\nthree\r\n');
    s.put('ap/old.ts', 'gone\n');
    s.put('ap/rename-me.ts', 'r1\nr2\n');
    const patch = [
      'diff --git a/ap/keep.ts b/ap/keep.ts',
      '--- a/ap/keep.ts',
      '+++ b/ap/keep.ts',
      '@@ -1,3 +1,3 @@',
      ' one',
      '-two',
      '+TWO',
      ' three',
      '--- /dev/null',
      '+++ b/ap/new.ts',
      '@@ -0,0 +1,2 @@',
      '+fresh',
      '+file',
      '--- a/ap/old.ts',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-gone',
      '--- a/ap/rename-me.ts',
      '+++ b/ap/renamed.ts',
      '@@ -1,2 +1,2 @@',
      ' r1',
      '-r2',
      '+R2',
      '',
    ].join('\n');
    const res = await s.call('apply_patch', { patch });
    expect(res.status).toBe(200);
    expect(res.body.data.files).toEqual([
      { path: 'ap/keep.ts', status: 'modified', additions: 1, deletions: 1 },
      { path: 'ap/new.ts', status: 'added', additions: 2, deletions: 0 },
      { path: 'ap/old.ts', status: 'deleted', additions: 0, deletions: 1 },
      { path: 'ap/renamed.ts', status: 'renamed', from: 'ap/rename-me.ts', additions: 1, deletions: 1 },
    ]);
    expect(s.text('ap/keep.ts')).toBe('one\r\nTWO\r\nthree\r\n');
    expect(s.text('ap/new.ts')).toBe('fresh\nfile\n');
    expect(existsSync(path.join(s.dir, 'ap/old.ts'))).toBe(false);
    expect(existsSync(path.join(s.dir, 'ap/rename-me.ts'))).toBe(false);
    expect(s.text('ap/renamed.ts')).toBe('r1\nR2\n');
  });

  it('changes no file when a hunk of a later file does not apply, and names the hunk', async () => {
    s.put('rb/a.ts', 'a1\na2\n');
    s.put('rb/b.ts', 'b1\nb2\nb3\nb4\nb5\nb6\nb7\nb8\n');
    const patch = [
      '--- a/rb/a.ts',
      '+++ b/rb/a.ts',
      '@@ -1,2 +1,2 @@',
      '-a1',
      '+A1',
      ' a2',
      '--- /dev/null',
      '+++ b/rb/c.ts',
      '@@ -0,0 +1 @@',
      '+c',
      '--- a/rb/b.ts',
      '+++ b/rb/b.ts',
      '@@ -1,2 +1,2 @@',
      '-b1',
      '+B1',
      ' b2',
      '@@ -6,2 +6,2 @@',
      '-b6 is different',
      '+B6',
      ' b7',
      '',
    ].join('\n');
    const res = await s.call('apply_patch', { patch });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('PATCH_FAILED');
    expect(res.body.error.message).toContain('hunk 2 of 2');
    expect(res.body.error.message).toContain('rb/b.ts');
    expect(res.body.error.details).toEqual({ path: 'rb/b.ts', hunk: 2 });
    expect(s.text('rb/a.ts')).toBe('a1\na2\n');
    expect(existsSync(path.join(s.dir, 'rb/c.ts'))).toBe(false);
  });

  it('refuses to create a file that exists and to patch one that does not', async () => {
    s.put('ex.ts', 'x\n');
    const create = await s.call('apply_patch', { patch: '--- /dev/null\n+++ b/ex.ts\n@@ -0,0 +1 @@\n+y\n' });
    expect(create.status).toBe(409);
    const missing = await s.call('apply_patch', {
      patch: '--- a/nope.ts\n+++ b/nope.ts\n@@ -1 +1 @@\n-a\n+b\n',
    });
    expect(missing.status).toBe(404);
  });

  it('refuses a patch that writes outside the workspace', async () => {
    const res = await s.call('apply_patch', {
      patch: '--- /dev/null\n+++ b/../escape.ts\n@@ -0,0 +1 @@\n+y\n',
    });
    expect(res.status).toBe(403);
  });
});

describe('delete_file, move_file, create_directory and symlinks', () => {
  let outside: string;
  beforeAll(() => {
    outside = outsideDir({ 'target.txt': 'outside' });
  });
  afterAll(() => rmSync(outside, { recursive: true, force: true }));

  it('creates directories idempotently', async () => {
    expect((await s.call('create_directory', { path: 'd1/d2' })).body.data).toEqual({
      path: 'd1/d2',
      created: true,
      dryRun: false,
    });
    expect((await s.call('create_directory', { path: 'd1/d2' })).body.data).toEqual({
      path: 'd1/d2',
      created: false,
      dryRun: false,
    });
    s.put('afile', 'x');
    expect((await s.call('create_directory', { path: 'afile' })).status).toBe(409);
  });

  it('deletes a symlink that points outside without touching its target', async () => {
    symlinkSync(path.join(outside, 'target.txt'), path.join(s.dir, 'out-link'));
    const res = await s.call('delete_file', { path: 'out-link' });
    expect(res.body.data).toEqual({
      path: 'out-link',
      deleted: true,
      type: 'symlink',
      undoable: true,
      dryRun: false,
    });
    expect(readFileSync(path.join(outside, 'target.txt'), 'utf8')).toBe('outside');
  });

  it('never writes or moves through a symlink out of the workspace', async () => {
    symlinkSync(outside, path.join(s.dir, 'out-dir'));
    expect((await s.call('write_file', { path: 'out-dir/x.txt', content: 'x' })).status).toBe(403);
    expect(
      (await s.call('edit_file', { path: 'out-dir/target.txt', old_string: 'o', new_string: 'x' })).status,
    ).toBe(403);
    s.put('mv.txt', 'm');
    expect((await s.call('move_file', { source: 'mv.txt', destination: 'out-dir/mv.txt' })).status).toBe(403);
    expect((await s.call('delete_file', { path: 'out-dir/target.txt' })).status).toBe(403);
    expect(existsSync(path.join(outside, 'mv.txt'))).toBe(false);
  });

  it('moves a symlink as a link and refuses to delete the workspace root', async () => {
    symlinkSync('mv.txt', path.join(s.dir, 'in-link'));
    const moved = await s.call('move_file', { source: 'in-link', destination: 'links/in-link' });
    expect(moved.status).toBe(200);
    expect((await s.call('delete_file', { path: '/', recursive: true })).status).toBe(403);
  });
});
