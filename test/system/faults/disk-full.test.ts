// The scenario, replayed: the data dir on a small filesystem, a session fills it. The service
// stays up, the command is stopped at the quota (or, without one, its log stops growing and says why),
// /readyz reports the full disk, creating a session on it gets 507, and everything recovers once space
// is freed. Needs root (it mounts a tmpfs); elsewhere it is skipped with the reason printed.
import { unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.js';
import { writeConfigFile } from '../../ops/with-config.js';
import { needs } from '../../helpers/requires.js';
import { fillUp, mountTmpfs, unmount } from './tmpfs.js';

const MiB = 1024 * 1024;
const isRoot = !needs('root', 'disk full on the data filesystem (it mounts a tmpfs)');

describe.skipIf(!isRoot)('disk full on the data filesystem', () => {
  let dataDir: string | null;
  let t: TestApp;

  beforeAll(async () => {
    dataDir = mountTmpfs(24);
    if (!dataDir) return;
    const config = writeConfigFile({
      limits: { workspaceMaxBytes: 8 * MiB },
      disk: { minFreeBytes: 2 * MiB, minFreeInodes: 100 },
    });
    t = await startApp({ TOOLGATE_CONFIG: config }, { dataDir });
  });

  afterAll(async () => {
    if (!dataDir) return;
    await t?.close({ keepData: true });
    unmount(dataDir);
  });

  it('stops dd at the quota, survives a full disk, reports it, refuses new sessions with 507, recovers', async (context) => {
    if (!dataDir) {
      console.info('disk-full test skipped: cannot mount a tmpfs here');
      context.skip();
    }
    const s = await t.createSession({ profile: 'full', files: { 'note.txt': 'one\ntwo\n' } });
    const acknowledged: string[] = [];
    const call = async (tool: string, input: unknown) => {
      const res = await t.call(s, tool, input);
      if (res.body.callId) acknowledged.push(res.body.callId);
      return res;
    };
    // The write tools' quota: 3 MB files until the third would pass 8 MB.
    const content = 'x'.repeat(3 * MiB);
    expect((await call('write_file', { path: 'a.bin', content })).status).toBe(200);
    expect((await call('write_file', { path: 'b.bin', content })).status).toBe(200);
    const third = await call('write_file', { path: 'c.bin', content });
    expect(third.status).toBe(507);
    expect(third.body.error.code).toBe('QUOTA_EXCEEDED');

    // The command that filled the disk before: stopped at the quota with a clear reason.
    const dd = await call('run_command', { command: 'dd if=/dev/zero of=fill bs=1M count=50' });
    expect(dd.status).toBe(200);
    expect(dd.body.data.job.killReason).toBe('quota');
    expect((await call('delete_file', { path: 'fill' })).status).toBe(200);

    // Now fill the disk itself, from outside the service (another tenant, a log file…).
    const filler = path.join(dataDir!, 'filler');
    fillUp(filler);
    expect((await t.http.get('/healthz')).status).toBe(200);
    const ready = await t.http.get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.disk.ok).toBe(false);
    expect(ready.body.checks.disk.detail).toMatch(/nearly full/);

    // Writes within the quota but not within the disk: 507 INSUFFICIENT_STORAGE, old content kept whole.
    const full = (res: { status: number; body: { error?: { code: string; suggestion?: string } } }) => {
      expect(res.status).toBe(507);
      expect(res.body.error?.code).toBe('INSUFFICIENT_STORAGE');
      expect(res.body.error?.suggestion).toBeTruthy();
    };
    full(await call('write_file', { path: 'a.bin', content: 'y'.repeat(MiB) }));
    full(await call('edit_file', { path: 'note.txt', old_string: 'two', new_string: 'TWO'.repeat(300_000) }));
    full(
      await call('apply_patch', {
        patch: '--- a/note.txt\n+++ b/note.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+' + 'z'.repeat(MiB) + '\n',
      }),
    );
    const kept = await call('read_file', { path: 'note.txt' });
    expect(kept.body).toMatchObject({ data: { content: 'one\ntwo' } });
    expect((await call('file_info', { path: 'a.bin' })).body.data.size).toBe(3 * MiB);

    // Refill what the refused writes gave back, to the last block: reads still answer, and their audit
    // rows, which the journal has no room for, are kept in memory until SQLite can take them.
    const topUp = path.join(dataDir!, 'filler-2');
    fillUp(topUp, '4k');
    const unjournaledBefore = t.app.services.audit.unjournaledRows;
    for (let i = 0; i < 20; i++) expect((await call('read_file', { path: 'note.txt' })).status).toBe(200);
    expect(t.app.services.audit.unjournaledRows).toBeGreaterThan(unjournaledBefore);
    // SQLite commits on the full disk (todo lists are rows): 200 while its WAL has room, then 507.
    const todoStatuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const todos = Array.from({ length: 40 }, (_, k) => ({
        content: `${i}-${k} ${'t'.repeat(900)}`,
        status: 'pending',
      }));
      const res = await call('todo_write', { todos });
      todoStatuses.push(res.status);
      if (res.status !== 200) expect(res.body.error.code).toBe('INSUFFICIENT_STORAGE');
    }
    expect(todoStatuses).toContain(507);
    unlinkSync(topUp);

    // A command whose output cannot be logged: it runs on, the log says why it stopped growing.
    const chatty = await call('run_command', {
      command: 'head -c 300000 /dev/zero | tr "\\0" x; echo done',
    });
    expect(chatty.status).toBe(200);
    expect(chatty.body.data.stdout).toContain('done');

    // A new session with seed files on a full disk: a clear 507, not a 500.
    const created = await t
      .admin(t.http.post('/v1/sessions'))
      .send({ files: { 'big.txt': 'y'.repeat(MiB) } });
    expect(created.status).toBe(507);
    expect(created.body.error.code).toBe('INSUFFICIENT_STORAGE');

    // The service kept serving throughout; free the space and it is ready again, by itself.
    unlinkSync(filler);
    const again = await t.http.get('/readyz');
    expect(again.body.checks.disk.ok).toBe(true);
    const after = await t.createSession({ files: { 'ok.txt': 'fine\n' } });
    expect((await t.call(after, 'read_file', { path: 'ok.txt' })).body.data.content).toBe('fine');
    // The same edit works now, and undo (its history was kept) brings the old text back.
    expect((await call('edit_file', { path: 'note.txt', old_string: 'two', new_string: 'TWO' })).status).toBe(
      200,
    );
    expect((await call('undo_edit', { path: 'note.txt' })).status).toBe(200);
    expect((await call('read_file', { path: 'note.txt' })).body.data.content).toBe('one\ntwo');

    // Every acknowledged call, those refused on the full disk included, has its audit row.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${s.id}&limit=500`));
    const audited = new Set((audit.body.entries as { callId: string }[]).map((entry) => entry.callId));
    expect(acknowledged.filter((id) => !audited.has(id))).toEqual([]);
    writeFileSync(path.join(dataDir!, 'probe'), 'x');
  });
});
