// POST /v1/sessions/{id}/fork: the new session's workspace is a copy of the parent's (symlinks as
// symlinks, modes kept), isolated from it both ways, with todos, read-tracking and checkpoints as asked;
// admin, or the session itself only when its profile allows it.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, tempDir, type InjectApp } from '../helpers/app.js';
import { treeInside } from './tree.js';

describe('forks', () => {
  let t: InjectApp;

  beforeAll(async () => {
    const dir = tempDir('toolgate-fork-config-');
    const config = path.join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({ profiles: { explorer: { permissions: ['read', 'write', 'execute'], fork: true } } }),
    );
    t = await injectApp({ TOOLGATE_CONFIG: config });
  });
  afterAll(() => t.close());

  it('copies the workspace, and a write on either side is not seen by the other', async () => {
    const parent = await t.createSession({ files: { 'src/a.txt': 'a\n', 'b.txt': 'b\n' } });
    const cmd = await t.call(parent, 'run_command', {
      command:
        'ln -s src/a.txt link && chmod 700 b.txt && mkdir -p empty/dir && head -c 3000 /dev/urandom > r.bin',
    });
    expect(cmd.body.data.exitCode).toBe(0);
    await t.call(parent, 'todo_write', { todos: [{ content: 'explore', status: 'in_progress' }] });
    const checkpoint = await t.call(parent, 'checkpoint_create', { name: 'before fork' });

    const res = await t.admin(t.http.post(`/v1/sessions/${parent.id}/fork`)).send({
      include: ['todos', 'checkpoints'],
      metadata: { branch: 1 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const child = res.body;
    expect(child).toMatchObject({
      forkedFrom: parent.id,
      profile: 'execute',
      metadata: { branch: 1 },
      files: 3,
      copy: expect.stringMatching(/^(overlay|full)$/),
    });
    expect(child.token).toMatch(/^tgs_/);
    expect(child.id).not.toBe(parent.id);
    expect(await treeInside(t, child)).toEqual(await treeInside(t, parent));

    expect((await t.call(child, 'write_file', { path: 'only-in-child.txt', content: 'c\n' })).status).toBe(
      200,
    );
    expect((await t.call(parent, 'run_command', { command: 'echo p > only-in-parent.txt' })).status).toBe(
      200,
    );
    expect((await t.call(parent, 'read_file', { path: 'only-in-child.txt' })).status).toBe(404);
    expect((await t.call(child, 'read_file', { path: 'only-in-parent.txt' })).status).toBe(404);

    // The fork's start is the copy: its changes are only its own.
    const changes = await t.call(child, 'workspace_changes', {});
    expect(changes.body.data.files.map((f: { path: string }) => f.path)).toEqual(['only-in-child.txt']);
    // Todos and checkpoints came along; the copied checkpoint restores in the fork.
    expect((await t.call(child, 'todo_read', {})).body.data.todos).toMatchObject([{ content: 'explore' }]);
    const list = await t.call(child, 'checkpoint_list', {});
    expect(list.body.data.checkpoints.map((c: { id: string }) => c.id)).toEqual([checkpoint.body.data.id]);
    const restored = await t.call(child, 'checkpoint_restore', { checkpoint: checkpoint.body.data.id });
    expect(restored.status).toBe(200);
    expect((await t.call(child, 'read_file', { path: 'only-in-child.txt' })).status).toBe(404);
    // Deleting the parent leaves the fork whole.
    expect((await t.admin(t.http.delete(`/v1/sessions/${parent.id}`))).status).toBe(204);
    expect(existsSync(path.join(t.dataDir, 'snapshots', parent.id))).toBe(false);
    expect((await t.call(child, 'read_file', { path: 'b.txt' })).body.data.content).toBe('b');
    const again = await t.call(child, 'checkpoint_restore', { checkpoint: checkpoint.body.data.id });
    expect(again.status).toBe(200);
  });

  it('leaves todos and checkpoints behind unless asked', async () => {
    const parent = await t.createSession({ files: { 'x.txt': 'x\n' } });
    await t.call(parent, 'todo_write', { todos: [{ content: 'mine', status: 'pending' }] });
    await t.call(parent, 'checkpoint_create', {});
    // No body at all: the defaults.
    const res = await t.admin(t.http.post(`/v1/sessions/${parent.id}/fork`));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await t.call(res.body, 'todo_read', {})).body.data.todos).toEqual([]);
    expect((await t.call(res.body, 'checkpoint_list', {})).body.data.checkpoints).toEqual([]);
  });

  it('lets a session fork itself only when its profile allows it', async () => {
    const plain = await t.createSession();
    const refused = await t.http
      .post(`/v1/sessions/${plain.id}/fork`)
      .set('authorization', `Bearer ${plain.token}`);
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(refused.body.error.code).toBe('PERMISSION_DENIED');

    const explorer = await t.createSession({ profile: 'explorer', files: { 'f.txt': 'f\n' } });
    expect((await t.call(explorer, 'read_file', { path: 'f.txt' })).status).toBe(200);
    const ok = await t.http
      .post(`/v1/sessions/${explorer.id}/fork`)
      .set('authorization', `Bearer ${explorer.token}`)
      .send({ include: ['reads'] });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.profile).toBe('explorer');
    // With its parent's read-tracking, the fork knows what was read: a change behind its back is caught.
    const changedBehind = async (fork: { id: string; token: string }) => {
      await t.call(fork, 'run_command', { command: 'echo changed > f.txt' });
      return (await t.call(fork, 'write_file', { path: 'f.txt', content: 'g\n' })).body;
    };
    expect((await changedBehind(ok.body)).error?.code).toBe('FILE_CHANGED_SINCE_READ');
    const blind = await t.admin(t.http.post(`/v1/sessions/${explorer.id}/fork`)).send({});
    expect((await changedBehind(blind.body)).success).toBe(true);
    // Another session's id is not found for a session token.
    const foreign = await t.http
      .post(`/v1/sessions/${plain.id}/fork`)
      .set('authorization', `Bearer ${explorer.token}`)
      .send({});
    expect(foreign.status).toBe(404);
  });
});
