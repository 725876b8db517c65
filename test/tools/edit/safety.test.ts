import { chmodSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../../helpers/app.js';
import { fileSession, type FileSession } from '../workspace-helpers.js';

let t: InjectApp;
beforeAll(async () => {
  t = await injectApp();
});
afterAll(() => t.close());

describe('read-before-write safety', () => {
  let s: FileSession;
  beforeAll(async () => {
    s = await fileSession(t);
  });

  it('refuses to edit a file changed on disk since the session read it, until it reads again', async () => {
    s.put('stale.ts', 'one\ntwo\n');
    await s.call('read_file', { path: 'stale.ts' });
    s.put('stale.ts', 'one\ntwo\nthree (changed by someone else)\n');
    const refused = await s.call('edit_file', { path: 'stale.ts', old_string: 'two', new_string: '2' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('FILE_CHANGED_SINCE_READ');
    expect(s.text('stale.ts')).toContain('three');
    await s.call('read_file', { path: 'stale.ts' });
    const ok = await s.call('edit_file', { path: 'stale.ts', old_string: 'two', new_string: '2' });
    expect(ok.status).toBe(200);
  });

  it('refuses to overwrite with write_file a file changed since the session wrote it', async () => {
    await s.call('write_file', { path: 'w.txt', content: 'mine\n' });
    s.put('w.txt', 'theirs\n');
    const refused = await s.call('write_file', { path: 'w.txt', content: 'mine again\n' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('FILE_CHANGED_SINCE_READ');
    expect(s.text('w.txt')).toBe('theirs\n');
  });

  it('lets consecutive edits of the session go through without re-reading', async () => {
    s.put('seq.ts', 'a\nb\nc\n');
    for (const [from, to] of [
      ['a', 'A'],
      ['b', 'B'],
      ['c', 'C'],
    ]) {
      expect((await s.call('edit_file', { path: 'seq.ts', old_string: from, new_string: to })).status).toBe(
        200,
      );
    }
    expect(s.text('seq.ts')).toBe('A\nB\nC\n');
  });

  it('checks expected_sha256 as a compare-and-swap on every write tool', async () => {
    s.put('cas.txt', 'v1\n');
    const info = await s.call('file_info', { path: 'cas.txt' });
    const wrong = 'f'.repeat(64);
    const bad = await s.call('edit_file', {
      path: 'cas.txt',
      old_string: 'v1',
      new_string: 'v2',
      expected_sha256: wrong,
    });
    expect(bad.status).toBe(409);
    expect(bad.body.error).toMatchObject({
      code: 'CONFLICT',
      details: { expected: wrong, actual: info.body.data.sha256 },
    });
    const badWrite = await s.call('write_file', { path: 'cas.txt', content: 'x', expected_sha256: wrong });
    expect(badWrite.status).toBe(409);
    const badDelete = await s.call('delete_file', { path: 'cas.txt', expected_sha256: wrong });
    expect(badDelete.status).toBe(409);
    const good = await s.call('edit_file', {
      path: 'cas.txt',
      old_string: 'v1',
      new_string: 'v2',
      expected_sha256: info.body.data.sha256,
    });
    expect(good.status).toBe(200);
    const reread = await s.call('read_file', { path: 'cas.txt' });
    expect(reread.body.data.sha256).toBe(good.body.data.sha256);
  });

  it('checks expected_sha256 per file in apply_patch and on the source of move_file', async () => {
    s.put('cas2/a.txt', 'a\n');
    const hash = (await s.call('file_info', { path: 'cas2/a.txt' })).body.data.sha256;
    const patch = '--- a/cas2/a.txt\n+++ b/cas2/a.txt\n@@ -1 +1 @@\n-a\n+A\n';
    const stale = await s.call('apply_patch', { patch, expected_sha256: { 'cas2/a.txt': '0'.repeat(64) } });
    expect(stale.status).toBe(409);
    const stranger = await s.call('apply_patch', { patch, expected_sha256: { 'other.txt': hash } });
    expect(stranger.status).toBe(400);
    expect((await s.call('apply_patch', { patch, expected_sha256: { '/cas2/a.txt': hash } })).status).toBe(
      200,
    );
    const moveStale = await s.call('move_file', {
      source: 'cas2/a.txt',
      destination: 'cas2/b.txt',
      expected_sha256: hash,
    });
    expect(moveStale.status).toBe(409);
    expect(s.text('cas2/a.txt')).toBe('A\n');
  });

  it('with requireReadBeforeEdit, refuses to change a file the session never read', async () => {
    const strict = await fileSession(t, { metadata: { requireReadBeforeEdit: true } });
    strict.put('unread.ts', 'x = 1\n');
    const refused = await strict.call('edit_file', {
      path: 'unread.ts',
      old_string: 'x = 1',
      new_string: 'x = 2',
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('FILE_NOT_READ');
    expect((await strict.call('write_file', { path: 'unread.ts', content: 'y' })).status).toBe(409);
    expect((await strict.call('write_file', { path: 'brand-new.ts', content: 'y' })).status).toBe(200);
    await strict.call('read_file', { path: 'unread.ts' });
    expect(
      (await strict.call('edit_file', { path: 'unread.ts', old_string: 'x = 1', new_string: 'x = 2' }))
        .status,
    ).toBe(200);
  });
});

describe('concurrency', () => {
  it('serializes concurrent edits to one file so every edit to a different region lands', async () => {
    const s = await fileSession(t);
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i} = old;`);
    s.put('busy.ts', `${lines.join('\n')}\n`);
    const results = await Promise.all(
      lines.map((line, i) =>
        s.call('edit_file', { path: 'busy.ts', old_string: line, new_string: `line ${i} = new;` }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(lines.map(() => 200));
    expect(s.text('busy.ts')).toBe(`${lines.map((_, i) => `line ${i} = new;`).join('\n')}\n`);
  });
});

describe('history and undo_edit', () => {
  let s: FileSession;
  beforeAll(async () => {
    s = await fileSession(t);
  });

  it('undoes edits one step at a time, then a creation, then reports nothing left', async () => {
    await s.call('write_file', { path: 'u.txt', content: 'v1\n' });
    await s.call('edit_file', { path: 'u.txt', old_string: 'v1', new_string: 'v2' });
    await s.call('edit_file', { path: 'u.txt', old_string: 'v2', new_string: 'v3' });
    const first = await s.call('undo_edit', { path: 'u.txt' });
    expect(first.body.data).toMatchObject({
      undone: 'edit_file',
      restored: [{ path: 'u.txt', action: 'restored' }],
    });
    expect(s.text('u.txt')).toBe('v2\n');
    await s.call('undo_edit', { path: 'u.txt' });
    expect(s.text('u.txt')).toBe('v1\n');
    const creation = await s.call('undo_edit', { path: 'u.txt' });
    expect(creation.body.data.restored).toEqual([{ path: 'u.txt', action: 'removed' }]);
    expect((await s.call('read_file', { path: 'u.txt' })).status).toBe(404);
    const none = await s.call('undo_edit', { path: 'u.txt' });
    expect(none.status).toBe(404);
  });

  it('undoes a change once when several calls ask at the same moment', async () => {
    await s.call('write_file', { path: 'twice.txt', content: 'one\n' });
    await s.call('edit_file', { path: 'twice.txt', old_string: 'one', new_string: 'two' });
    await s.call('edit_file', { path: 'twice.txt', old_string: 'two', new_string: 'three' });
    const results = await Promise.all(
      Array.from({ length: 6 }, () => s.call('undo_edit', { path: 'twice.txt' })),
    );
    const statuses = results.map((res) => res.status).sort();
    // Each call undoes one step or is told why not; none fails on a step another call already undid.
    expect(statuses.every((status) => [200, 404, 409].includes(status))).toBe(true);
    const undone = statuses.filter((status) => status === 200).length;
    expect(undone).toBeGreaterThanOrEqual(1);
    expect(undone).toBeLessThanOrEqual(3);
    const expected = ['three\n', 'two\n', 'one\n', null][undone];
    if (expected === null) expect((await s.call('read_file', { path: 'twice.txt' })).status).toBe(404);
    else expect(s.text('twice.txt')).toBe(expected);
  });

  it('brings back a recursively deleted directory', async () => {
    s.put('tree/a.txt', 'A');
    s.put('tree/sub/b.txt', 'B');
    expect((await s.call('delete_file', { path: 'tree' })).status).toBe(422);
    const del = await s.call('delete_file', { path: 'tree', recursive: true });
    expect(del.body.data).toEqual({
      path: 'tree',
      deleted: true,
      type: 'directory',
      undoable: true,
      dryRun: false,
    });
    await s.call('undo_edit', { path: 'tree' });
    expect(s.text('tree/sub/b.txt')).toBe('B');
  });

  it('reverses a move that replaced a file, putting both files back', async () => {
    s.put('m/src.txt', 'source');
    s.put('m/dst.txt', 'old destination');
    expect((await s.call('move_file', { source: 'm/src.txt', destination: 'm/dst.txt' })).status).toBe(409);
    const moved = await s.call('move_file', {
      source: 'm/src.txt',
      destination: 'm/dst.txt',
      overwrite: true,
    });
    expect(moved.body.data).toEqual({
      source: 'm/src.txt',
      destination: 'm/dst.txt',
      overwritten: true,
      dryRun: false,
    });
    expect(s.text('m/dst.txt')).toBe('source');
    const undo = await s.call('undo_edit', { path: 'm/dst.txt' });
    expect(undo.status).toBe(200);
    expect(s.text('m/src.txt')).toBe('source');
    expect(s.text('m/dst.txt')).toBe('old destination');
  });

  it('refuses to undo a multi-file change when one of its files changed again later', async () => {
    s.put('p/a.txt', 'a\n');
    s.put('p/b.txt', 'b\n');
    const patch =
      '--- a/p/a.txt\n+++ b/p/a.txt\n@@ -1 +1 @@\n-a\n+A\n--- a/p/b.txt\n+++ b/p/b.txt\n@@ -1 +1 @@\n-b\n+B\n';
    expect((await s.call('apply_patch', { patch })).status).toBe(200);
    await s.call('edit_file', { path: 'p/b.txt', old_string: 'B', new_string: 'BB' });
    const refused = await s.call('undo_edit', { path: 'p/a.txt' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.suggestion).toContain('p/b.txt');
    await s.call('undo_edit', { path: 'p/b.txt' });
    await s.call('undo_edit', { path: 'p/a.txt' });
    expect([s.text('p/a.txt'), s.text('p/b.txt')]).toEqual(['a\n', 'b\n']);
  });

  it('keeps at most 20 versions per file', async () => {
    await s.call('write_file', { path: 'many.txt', content: '0' });
    for (let i = 1; i <= 22; i++) await s.call('write_file', { path: 'many.txt', content: String(i) });
    let undone = 0;
    while ((await s.call('undo_edit', { path: 'many.txt' })).status === 200) undone++;
    expect(undone).toBe(20);
    expect(s.text('many.txt')).toBe('2');
  });

  // Small files and blobs are written and deleted without the thread pool, large ones through it
  // (300 KiB is past both limits): both ways keep bytes and mode, and pruning deletes the blobs.
  it('keeps large versions byte for byte with their mode, and deletes the blobs it prunes', async () => {
    const version = (i: number) =>
      Array.from({ length: 6000 }, (_, line) => `v${i} line ${line} ${'x'.repeat(40)}`).join('\n');
    await s.call('write_file', { path: 'big.txt', content: version(0) });
    chmodSync(path.join(s.dir, 'big.txt'), 0o750);
    for (let i = 1; i <= 22; i++) {
      const res = await s.call('write_file', { path: 'big.txt', content: version(i) });
      expect(res.status).toBe(200);
    }
    expect(statSync(path.join(s.dir, 'big.txt')).mode & 0o777).toBe(0o750);
    const blobs = readdirSync(path.join(t.dataDir, 'history', s.id));
    const bigBlobs = blobs.filter(
      (name) => statSync(path.join(t.dataDir, 'history', s.id, name)).size > 300_000,
    );
    expect(bigBlobs).toHaveLength(20);
    await s.call('undo_edit', { path: 'big.txt' });
    await s.call('undo_edit', { path: 'big.txt' });
    expect(s.text('big.txt')).toBe(version(20));
    expect(statSync(path.join(s.dir, 'big.txt')).mode & 0o777).toBe(0o750);
  });
});

describe('persistence across a restart', () => {
  it('keeps read records and history in SQLite and on disk', async () => {
    const app = await injectApp();
    const s = await fileSession(app);
    await s.call('write_file', { path: 'keep.txt', content: 'first\n' });
    await s.call('edit_file', { path: 'keep.txt', old_string: 'first', new_string: 'second' });
    await app.close({ keepData: true });

    const again = await injectApp({}, { dataDir: app.dataDir });
    try {
      const call = (tool: string, input: unknown) => again.call(s, tool, input);
      const undo = await call('undo_edit', { path: 'keep.txt' });
      expect(undo.status).toBe(200);
      expect(s.text('keep.txt')).toBe('first\n');
      writeFileSync(path.join(s.dir, 'keep.txt'), 'changed behind its back\n');
      const stale = await call('edit_file', { path: 'keep.txt', old_string: 'changed', new_string: 'x' });
      expect(stale.body.error.code).toBe('FILE_CHANGED_SINCE_READ');
    } finally {
      await again.close();
    }
  });
});
