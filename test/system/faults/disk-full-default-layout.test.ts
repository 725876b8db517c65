// A full disk in the default layout: one small file system holds the whole data dir (SQLite, history,
// snapshots, blobs, job logs) and the workspaces under it, with no workspace quota. A command in one
// session fills it; then every call that needs room, in another session, through every way in (the
// side-effecting tools, todo_write, checkpoints, uploads, archives, blobs, session create), answers
// 507 INSUFFICIENT_STORAGE with a suggestion, or succeeds when it needed no room, and never leaves its
// workspace half-written. Once the disk has room again, everything works without a restart.
// Needs root (it mounts a tmpfs); elsewhere it is skipped with the reason printed.
import path from 'node:path';
import { existsSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.js';
import { hashWorkspace } from '../../helpers/workspace-hash.js';
import { tarOf } from '../../transfer/archive-helpers.js';
import { needs } from '../../helpers/requires.js';
import { mountTmpfs, unmount } from './tmpfs.js';

const MiB = 1024 * 1024;
const big = 'x'.repeat(4 * MiB);

interface Answer {
  status: number;
  body: { error?: { code: string; message: string; suggestion?: string } };
}

const isRoot = !needs('root', 'the default-layout disk-full test (it mounts a tmpfs)');

describe.skipIf(!isRoot)(
  'a full disk in the default layout (data dir and workspaces on one file system)',
  () => {
    let dataDir: string | null;
    let t: TestApp;

    beforeAll(async () => {
      dataDir = mountTmpfs(40);
      if (!dataDir) return;
      // Only the readiness floor is lowered, to fit this small disk: the layout is the default one.
      const config = path.join(dataDir, 'config.json');
      writeFileSync(config, JSON.stringify({ disk: { minFreeBytes: 2 * MiB, minFreeInodes: 100 } }));
      t = await startApp({ TOOLGATE_CONFIG: config }, { dataDir });
    });

    afterAll(async () => {
      if (!dataDir) return;
      await t?.close({ keepData: true });
      unmount(dataDir);
    });

    it('answers 507 with a suggestion on every way in, writes nothing half, and recovers without a restart', async (context) => {
      if (!dataDir) {
        console.info('default-layout disk-full test skipped: cannot mount a tmpfs here');
        context.skip();
      }
      const filler = await t.createSession({ profile: 'full' });
      const s = await t.createSession({
        profile: 'full',
        files: { 'note.txt': 'one\ntwo\n', 'keep.txt': 'keep\n', 'dir/inner.txt': 'inner\n' },
      });
      const call = (tool: string, input: unknown) => t.call(s, tool, input) as unknown as Promise<Answer>;
      // What the full disk will meet: a file read (edits need one), an undo step, a checkpoint.
      expect((await call('read_file', { path: 'note.txt' })).status).toBe(200);
      expect(
        (await call('edit_file', { path: 'keep.txt', old_string: 'keep', new_string: 'kept' })).status,
      ).toBe(200);
      const checkpoint = await call('checkpoint_create', { name: 'before' });
      expect(checkpoint.status).toBe(200);
      const checkpointId = (checkpoint.body as unknown as { data: { id: string } }).data.id;

      // The agent of the other session fills the disk from a command.
      const dd = await t.call(filler, 'run_command', { command: 'dd if=/dev/zero of=fill bs=1M count=100' });
      expect(dd.status).toBe(200);
      expect(dd.body.data.exitCode).not.toBe(0);

      const full = (what: string, res: Answer) => {
        expect({ what, status: res.status, code: res.body.error?.code }).toEqual({
          what,
          status: 507,
          code: 'INSUFFICIENT_STORAGE',
        });
        expect(res.body.error?.suggestion, what).toBeTruthy();
      };
      // A call that may need no room (a rename, a removal, a row that fits in a page SQLite has free):
      // either it worked, or it is a 507 with a suggestion and the workspace is as it was.
      const fullOrDone = async (what: string, send: () => Promise<Answer>) => {
        const before = hashWorkspace(t, s.id);
        const res = await send();
        if (res.status === 200 || res.status === 201) return res;
        full(what, res);
        expect(hashWorkspace(t, s.id), `${what} left its workspace half-written`).toBe(before);
        return res;
      };
      // A call that needs megabytes: always 507, nothing written.
      const mustBeFull = async (what: string, send: () => Promise<Answer>) => {
        const before = hashWorkspace(t, s.id);
        full(what, await send());
        expect(hashWorkspace(t, s.id), `${what} left its workspace half-written`).toBe(before);
      };

      await mustBeFull('write_file', () => call('write_file', { path: 'more.bin', content: big }));
      await mustBeFull('edit_file', () =>
        call('edit_file', { path: 'note.txt', old_string: 'two', new_string: big }),
      );
      await mustBeFull('multi_edit', () =>
        call('multi_edit', { path: 'note.txt', edits: [{ old_string: 'one', new_string: big }] }),
      );
      await mustBeFull('apply_patch', () =>
        call('apply_patch', {
          patch: `--- a/note.txt\n+++ b/note.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+${big}\n`,
        }),
      );
      await mustBeFull(
        'upload',
        () =>
          t.http
            .put(`/v1/sessions/${s.id}/files/upload.bin`)
            .set('authorization', `Bearer ${s.token}`)
            .set('content-type', 'application/octet-stream')
            .send(Buffer.from(big)) as unknown as Promise<Answer>,
      );
      const archive = await tarOf([{ name: 'unpacked/big.bin', content: big }]);
      await mustBeFull(
        'archive extract',
        () =>
          t.http
            .post(`/v1/sessions/${s.id}/archive?path=.`)
            .set('authorization', `Bearer ${s.token}`)
            .set('content-type', 'application/octet-stream')
            .send(archive) as unknown as Promise<Answer>,
      );
      // Deleting is how room is made: it works on a full disk, keeping no copy when there is no room.
      const deleted = await call('delete_file', { path: 'dir/inner.txt' });
      expect(deleted.status).toBe(200);
      expect(existsSync(path.join(t.app.services.workspaces.dirFor(s.id), 'dir/inner.txt'))).toBe(false);
      await fullOrDone('move_file', () =>
        call('move_file', { source: 'note.txt', destination: 'moved.txt' }),
      );
      await fullOrDone('create_directory', () => call('create_directory', { path: 'new/deeper' }));
      // With an Idempotency-Key, whose stored outcome is a row: a call that ran is never answered 507.
      await fullOrDone(
        'create_directory with an Idempotency-Key',
        () =>
          t.http
            .post(`/v1/sessions/${s.id}/tools/create_directory`)
            .set('authorization', `Bearer ${s.token}`)
            .set('idempotency-key', 'full-disk-1')
            .send({ path: 'keyed' }) as unknown as Promise<Answer>,
      );
      // A fork copies the workspace and creates a session.
      full('fork', (await t.admin(t.http.post(`/v1/sessions/${s.id}/fork`)).send({})) as unknown as Answer);
      await fullOrDone('undo_edit', () => call('undo_edit', { path: 'keep.txt' }));
      await fullOrDone('checkpoint_create', () => call('checkpoint_create', { name: 'on a full disk' }));
      // Reads out of the workspace need no room: both formats stream (507 at worst, never a 500).
      for (const format of ['tar.gz', 'zip']) {
        await fullOrDone(
          `archive download (${format})`,
          () =>
            t.http
              .get(`/v1/sessions/${s.id}/archive?path=.&format=${format}`)
              .set('authorization', `Bearer ${s.token}`) as unknown as Promise<Answer>,
        );
      }
      const download = await t.http
        .get(`/v1/sessions/${s.id}/files/keep.txt`)
        .set('authorization', `Bearer ${s.token}`);
      expect(download.status).toBe(200);
      await fullOrDone('checkpoint_restore', () => call('checkpoint_restore', { checkpoint: checkpointId }));
      await fullOrDone('run_command', () => call('run_command', { command: 'echo hi > out.txt' }));
      const todos = Array.from({ length: 100 }, (_, i) => ({
        content: `${i} ${'t'.repeat(1900)}`,
        status: 'pending',
      }));
      await fullOrDone('todo_write', () => call('todo_write', { todos }));
      full(
        'blob upload',
        (await t
          .admin(t.http.post('/v1/blobs'))
          .set('content-type', 'application/octet-stream')
          .send(Buffer.from(big))) as unknown as Answer,
      );
      full(
        'session create with files',
        (await t.admin(t.http.post('/v1/sessions')).send({ files: { 'big.txt': big } })) as unknown as Answer,
      );
      full(
        'session create from an archive',
        (await t
          .admin(t.http.post('/v1/sessions'))
          .send({ archive_base64: archive.toString('base64') })) as unknown as Answer,
      );
      expect(existsSync(path.join(t.app.services.workspaces.dirFor(s.id), 'more.bin'))).toBe(false);
      // The refused creates left no session behind.
      const listed = await t.admin(t.http.get('/v1/sessions'));
      expect((listed.body.sessions as { id: string }[]).map((x) => x.id).sort()).toEqual(
        [filler.id, s.id].sort(),
      );
      expect((await t.http.get('/healthz')).status).toBe(200);

      // The sweep: the agent deletes what filled the disk (no room for a copy of it, so undo cannot bring
      // it back, as the answer says), and every way in works again, no restart.
      const freed = await t.call(filler, 'delete_file', { path: 'fill' });
      expect(freed.status).toBe(200);
      expect(freed.body.data).toMatchObject({ deleted: true, undoable: false });
      expect((await t.http.get('/readyz')).status).toBe(200);
      const ok = (what: string, res: Answer) =>
        expect({ what, status: res.status, error: res.body.error }).toMatchObject({ what, status: 200 });
      ok('write_file', await call('write_file', { path: 'more.bin', content: big }));
      expect((await call('read_file', { path: 'note.txt' })).status).toBe(200);
      ok('edit_file', await call('edit_file', { path: 'note.txt', old_string: 'two', new_string: 'TWO' }));
      ok(
        'multi_edit',
        await call('multi_edit', { path: 'note.txt', edits: [{ old_string: 'one', new_string: 'ONE' }] }),
      );
      ok(
        'apply_patch',
        await call('apply_patch', {
          patch: '--- a/note.txt\n+++ b/note.txt\n@@ -1,2 +1,2 @@\n ONE\n-TWO\n+2\n',
        }),
      );
      ok('create_directory', await call('create_directory', { path: 'made' }));
      ok('move_file', await call('move_file', { source: 'more.bin', destination: 'made/more.bin' }));
      ok('delete_file', await call('delete_file', { path: 'made/more.bin' }));
      ok('undo_edit', await call('undo_edit', { path: 'note.txt' }));
      ok('todo_write', await call('todo_write', { todos: todos.slice(0, 20) }));
      const cmd = await call('run_command', { command: 'echo hi > out.txt && cat out.txt' });
      ok('run_command', cmd);
      expect((cmd.body as unknown as { data: { stdout: string } }).data.stdout).toBe('hi\n');
      ok('checkpoint_create', await call('checkpoint_create', {}));
      ok('checkpoint_restore', await call('checkpoint_restore', { checkpoint: checkpointId }));
      const uploaded = await t.http
        .put(`/v1/sessions/${s.id}/files/upload.bin`)
        .set('authorization', `Bearer ${s.token}`)
        .set('content-type', 'application/octet-stream')
        .send(Buffer.from(big));
      expect(uploaded.status).toBe(201);
      const extracted = await t.http
        .post(`/v1/sessions/${s.id}/archive?path=.`)
        .set('authorization', `Bearer ${s.token}`)
        .set('content-type', 'application/octet-stream')
        .send(archive);
      expect(extracted.status).toBe(200);
      const blob = await t
        .admin(t.http.post('/v1/blobs'))
        .set('content-type', 'application/octet-stream')
        .send(archive);
      expect(blob.status).toBe(201);
      const fresh = await t
        .admin(t.http.post('/v1/sessions'))
        .send({ archive: blob.body.id, files: { 'a.txt': 'a' } });
      expect(fresh.status).toBe(201);
    }, 60_000);
  },
);
