// Checkpoints: create → change (by tools and by commands) → restore gives back identical bytes, modes
// and symlinks (every file hashed from disk); a checkpoint of an unchanged tree adds (near) nothing to
// disk; permissions, bad ids and the store's confinement.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { readTree } from './tree.js';

const du = (dir: string) =>
  Number(execFileSync('du', ['-s', '-B1', dir], { encoding: 'utf8' }).split('\t')[0]);

describe('checkpoints', () => {
  let t: TestApp;
  let session: { id: string; token: string };
  const workspace = () => path.join(t.dataDir, 'workspaces', session.id);
  const asSession = (req: import('supertest').Test) => req.set('authorization', `Bearer ${session.token}`);

  beforeAll(async () => {
    t = await startApp();
    session = await t.createSession({ files: { 'README.md': '# demo\n', 'src/app.py': 'print(1)\n' } });
  });
  afterAll(() => t.close());

  const run = async (command: string) => {
    const res = await t.call(session, 'run_command', { command });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.exitCode, res.body.data.stderr).toBe(0);
  };

  it('restores identical bytes, modes and symlinks after changes by tools and commands', async () => {
    await run(
      [
        'mkdir -p tree/sub locked && printf "secret" > tree/sub/s.txt && chmod 600 tree/sub/s.txt',
        'printf "#!/bin/sh\\n" > run.sh && chmod 755 run.sh',
        'head -c 20000 /dev/urandom > blob.bin',
        'ln -s src/app.py link && ln -s missing dangling',
        'printf x > locked/f && chmod 555 locked',
      ].join(' && '),
    );
    const before = readTree(workspace(), { dirs: true });
    const created = await asSession(t.http.post(`/v1/sessions/${session.id}/checkpoints`)).send({
      name: 'first',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ name: 'first', files: 6 });
    const id = created.body.id as string;

    // Tools…
    expect((await t.call(session, 'read_file', { path: 'README.md' })).status).toBe(200);
    expect((await t.call(session, 'write_file', { path: 'README.md', content: 'changed\n' })).status).toBe(
      200,
    );
    expect((await t.call(session, 'delete_file', { path: 'src/app.py' })).status).toBe(200);
    // …and commands: content, modes, types swapped, new entries.
    await run(
      [
        'chmod 755 locked && rm -rf locked tree/sub',
        'chmod 644 run.sh',
        'printf "\\000" >> blob.bin',
        'rm link && printf "now a file" > link',
        'mkdir dangling.d && mv dangling.d x && rm dangling && mkdir dangling',
        'mkdir -p fresh/dir && printf new > fresh/dir/n.txt',
        // Made read-only, as a Go module cache is: the restore removes it all the same.
        'mkdir -p ro/cache/pkg && printf x > ro/cache/pkg/m.go && chmod -R a-w ro',
      ].join(' && '),
    );
    expect(readTree(workspace(), { dirs: true })).not.toEqual(before);

    const restored = await asSession(t.http.post(`/v1/sessions/${session.id}/checkpoints/${id}/restore`));
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body).toMatchObject({ checkpoint: id });
    expect(readTree(workspace(), { dirs: true })).toEqual(before);

    // Nothing changed since that checkpoint any more. (Past the racy window, this snapshot re-reads the
    // freshly restored files once and then trusts their stat keys.)
    await new Promise((resolve) => setTimeout(resolve, 150));
    const since = await t.call(session, 'workspace_changes', { since: id });
    expect(since.body.data.files).toEqual([]);
    // A second restore has nothing to write: every file matches by stat key.
    const again = await t.call(session, 'checkpoint_restore', { checkpoint: id });
    expect(again.status).toBe(200);
    expect(again.body.data.written).toBe(0);
  });

  it('shares unchanged contents: a checkpoint of an unchanged tree adds (near) nothing to disk', async () => {
    await run('mkdir -p bulk && for i in $(seq 1 200); do head -c 10000 /dev/urandom > bulk/f$i; done');
    const storeDir = path.join(t.dataDir, 'snapshots', session.id);
    const first = await t.call(session, 'checkpoint_create', { name: 'bulk' });
    expect(first.status).toBe(200);
    expect(first.body.data.addedBytes).toBeGreaterThanOrEqual(2_000_000);
    const diskBefore = du(storeDir);
    const second = await t.call(session, 'checkpoint_create', { name: 'unchanged' });
    expect(second.body.data.addedBytes).toBe(0);
    const extra = du(storeDir) - diskBefore;
    expect(extra).toBeLessThan(0.05 * 2_000_000);
    const list = await t.call(session, 'checkpoint_list', {});
    expect(list.body.data.checkpoints.map((c: { name: string }) => c.name)).toEqual([
      'first',
      'bulk',
      'unchanged',
    ]);
  });

  it('deletes a checkpoint and answers 404 in the envelope for unknown ones', async () => {
    const list = await asSession(t.http.get(`/v1/sessions/${session.id}/checkpoints`));
    expect(list.status).toBe(200);
    const last = list.body.checkpoints.at(-1).id;
    expect((await asSession(t.http.delete(`/v1/sessions/${session.id}/checkpoints/${last}`))).status).toBe(
      204,
    );
    for (const bad of [last, 'cp_0000000000000000', 'not-a-checkpoint', '..']) {
      const restore = await asSession(
        t.http.post(`/v1/sessions/${session.id}/checkpoints/${encodeURIComponent(bad)}/restore`),
      );
      expect(restore.status, bad).toBe(404);
      expect(restore.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
      const del = await asSession(
        t.http.delete(`/v1/sessions/${session.id}/checkpoints/${encodeURIComponent(bad)}`),
      );
      expect(del.status).toBe(404);
      expect(del.body.error.code).toBe('NOT_FOUND');
    }
    // Another session cannot use this session's checkpoint ids.
    const other = await t.createSession();
    const first = list.body.checkpoints[0].id;
    const foreign = await t.call(other, 'checkpoint_restore', { checkpoint: first });
    expect(foreign.status).toBe(404);
  });

  it('refuses restore and delete to a read-only session (restore is a write) and audits the refusal', async () => {
    const reader = await t.createSession({ profile: 'read-only', files: { 'a.txt': 'a\n' } });
    // A checkpoint needs only read (it changes nothing); a POST without a body makes one without a name.
    const unnamed = await t.http
      .post(`/v1/sessions/${reader.id}/checkpoints`)
      .set('authorization', `Bearer ${reader.token}`);
    expect(unnamed.status, JSON.stringify(unnamed.body)).toBe(201);
    expect(unnamed.body.name).toBeNull();
    const made = await t.call(reader, 'checkpoint_create', {});
    expect(made.status).toBe(200);
    const restore = await t.http
      .post(`/v1/sessions/${reader.id}/checkpoints/${made.body.data.id}/restore`)
      .set('authorization', `Bearer ${reader.token}`);
    expect(restore.status).toBe(403);
    expect(restore.body.error.code).toBe('PERMISSION_DENIED');
    const del = await t.http
      .delete(`/v1/sessions/${reader.id}/checkpoints/${made.body.data.id}`)
      .set('authorization', `Bearer ${reader.token}`);
    expect(del.status).toBe(403);
    const audit = await t.admin(
      t.http.get('/v1/audit').query({ sessionId: reader.id, tool: 'checkpoint_restore' }),
    );
    expect(audit.body.entries.map((e: { errorCode: string }) => e.errorCode)).toContain('PERMISSION_DENIED');
  });

  it('parks a restore for approval when the policy says so (202), like any tool call', async () => {
    const careful = await t.createSession({ approval: ['checkpoint_restore'], files: { 'a.txt': 'a\n' } });
    const made = await t.call(careful, 'checkpoint_create', {});
    const restore = await t.http
      .post(`/v1/sessions/${careful.id}/checkpoints/${made.body.data.id}/restore`)
      .set('authorization', `Bearer ${careful.token}`);
    expect(restore.status).toBe(202);
    expect(restore.body).toMatchObject({ pending: true, status: 'pending_approval' });
    const approved = await t.admin(t.http.post(`/v1/approvals/${restore.body.callId}/approve`)).send({});
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  });

  it('keeps the store out of reach of commands', async (ctx) => {
    // The store is out of reach because the bwrap sandbox does not mount the data dir; the unisolated
    // runtime (TOOLGATE_SANDBOX=none, the suite's second pass) sees the host by design.
    if (!t.app.services.runtimes.backend.isolated) {
      console.info('snapshot store reach test skipped: the unisolated runtime has no sandbox to test');
      ctx.skip();
    }
    const storeDir = path.join(t.dataDir, 'snapshots', session.id);
    const res = await t.call(session, 'run_command', {
      command: `ls ${storeDir} || ls ${t.dataDir} || echo unreachable; find / -xdev -name '*.json.gz' 2>/dev/null | head -5`,
    });
    expect(res.body.data.stdout).toContain('unreachable');
    expect(res.body.data.stdout).not.toContain('.json.gz');
  });
});
