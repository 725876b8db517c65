// Copy-on-write forks (sandbox/overlay-workspaces.ts): with the bwrap backend as root, a fork's workspace
// is an overlay of the parent's snapshot. Isolation both ways, deletions and renames (also of a directory
// of the lower tree), modes and bytes, forks of forks, a runtime restart, clean-up on delete, and what the
// child's sandbox can see of the host. Skipped, saying why, where overlays are not available; there a
// fork must say `copy: "full"`.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, tempDir, type TestApp } from '../helpers/app.js';
import { treeInside } from './tree.js';

type Session = { id: string; token: string; [k: string]: unknown };

describe('copy-on-write forks', () => {
  let t: TestApp;
  let overlay = false;
  let why = '';
  const forksDir = () => path.join(t.dataDir, 'forks');

  beforeAll(async () => {
    t = await startApp();
    const overlays = t.app.services.workspaces.overlays!;
    overlay = await overlays.available();
    why = overlays.detail;
    if (!overlay) console.log(`copy-on-write fork tests skipped: ${why}`);
  });
  afterAll(() => t.close());

  const run = async (session: Session, command: string) => {
    const res = await t.call(session, 'run_command', { command });
    expect(res.body.data?.exitCode, JSON.stringify(res.body)).toBe(0);
    return res.body.data.stdout as string;
  };
  const fork = async (parent: Session): Promise<Session> => {
    const res = await t.admin(t.http.post(`/v1/sessions/${parent.id}/fork`)).send({});
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.copy).toBe(overlay ? 'overlay' : 'full');
    return res.body;
  };
  const seeded = async () => {
    const parent = await t.createSession({ files: { 'src/a.txt': 'a\n', 'src/deep/b.txt': 'b\n' } });
    await run(
      parent,
      [
        'printf "#!/bin/sh\\necho hi\\n" > run.sh && chmod 755 run.sh',
        // The same bytes under three modes: each needs an inode of its own in the lower tree.
        'echo same > same-644 && echo same > same-600 && chmod 600 same-600',
        'echo same > same-755 && chmod 755 same-755',
        ': > empty && ln -s src/a.txt link && mkdir -p dirs/empty && chmod 750 dirs',
        'head -c 100000 /dev/urandom > r.bin',
      ].join(' && '),
    );
    return parent;
  };

  it('says how it copied: overlay where the probe mount works, else full', async () => {
    const parent = await t.createSession({ files: { 'a.txt': 'a\n' } });
    const child = await fork(parent);
    expect((await t.call(child, 'read_file', { path: 'a.txt' })).body.data.content).toBe('a');
    if (t.app.services.runtimes.backend.name === 'none') expect(child.copy).toBe('full');
  });

  it('gives the child the same tree, and neither side sees the other write', async (ctx) => {
    if (!overlay) ctx.skip(why);
    const parent = await seeded();
    const child = await fork(parent);
    expect(await treeInside(t, child)).toEqual(await treeInside(t, parent));
    // The child's workspace dir on the host stays empty: the files are in the lower tree.
    expect(readdirSync(path.join(t.dataDir, 'workspaces', child.id))).toEqual([]);

    await run(child, 'echo child >> src/a.txt && echo new > child-only && chmod 700 run.sh');
    await run(parent, 'echo parent >> src/deep/b.txt && echo new > parent-only');
    expect(await run(parent, 'cat src/a.txt; ls; stat -c %a run.sh')).toBe(
      'a\ndirs\nempty\nlink\nparent-only\nr.bin\nrun.sh\nsame-600\nsame-644\nsame-755\nsrc\n755\n',
    );
    expect(
      await run(
        child,
        'cat src/a.txt src/deep/b.txt; ls child-only; test ! -e parent-only; stat -c %a run.sh',
      ),
    ).toBe('a\nchild\nb\nchild-only\n700\n');
    // A copied-up write never reaches the shared blob: a second fork still gets the parent's bytes.
    const second = await fork(parent);
    expect(await run(second, 'cat src/a.txt')).toBe('a\n');
  });

  it('takes uploads into the child through frames (its overlay file cannot be reopened), byte for byte', async (ctx) => {
    if (!overlay) ctx.skip(why);
    const parent = await seeded();
    const child = await fork(parent);
    const bytes = randomBytes(3 * 1024 * 1024 + 11);
    const put = await t.http
      .put(`/v1/sessions/${child.id}/files/src/a.txt`)
      .set('authorization', `Bearer ${child.token}`)
      .set('content-type', 'application/octet-stream')
      .send(bytes);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(await run(child, 'sha256sum src/a.txt | cut -c1-64')).toBe(`${put.body.sha256}\n`);
    expect(await run(parent, 'cat src/a.txt')).toBe('a\n');
  });

  it('deletes and renames files and lower directories in the child', async (ctx) => {
    if (!overlay) ctx.skip(why);
    const parent = await seeded();
    const child = await fork(parent);
    await run(child, 'rm src/a.txt && mv src/deep moved && mv r.bin r2.bin && rm -r dirs');
    expect(await run(child, 'find . -mindepth 1 | LC_ALL=C sort')).toBe(
      './empty\n./link\n./moved\n./moved/b.txt\n./r2.bin\n./run.sh\n./same-600\n./same-644\n./same-755\n./src\n',
    );
    // The file tools see the same merged view (they run in the same runtime).
    expect((await t.call(child, 'read_file', { path: 'moved/b.txt' })).body.data.content).toBe('b');
    expect((await t.call(child, 'move_file', { source: 'src', destination: 'src2' })).status).toBe(200);
    expect(await run(parent, 'cat src/a.txt src/deep/b.txt; test -d dirs/empty && echo ok')).toBe(
      'a\nb\nok\n',
    );
    // The child's changes since its start (the parent's snapshot) are its own.
    const changes = await t.call(child, 'workspace_changes', {});
    const files = changes.body.data.files.map((f: { path: string; status: string }) => [f.path, f.status]);
    expect(files.sort()).toEqual([
      ['moved/b.txt', 'renamed'],
      ['r2.bin', 'renamed'],
      ['src/a.txt', 'deleted'],
    ]);
  });

  it('forks a fork, and keeps the files over a runtime restart', async (ctx) => {
    if (!overlay) ctx.skip(why);
    const parent = await seeded();
    const child = await fork(parent);
    await run(child, 'echo gen1 > gen && rm same-600');
    const grandchild = await fork(child);
    expect(await treeInside(t, grandchild)).toEqual(await treeInside(t, child));
    await run(grandchild, 'echo gen2 >> gen');
    expect(await run(child, 'cat gen')).toBe('gen1\n');

    await t.app.services.runtimes.get(grandchild.id)!.stop();
    expect(t.app.services.runtimes.get(grandchild.id)!.state).toBe('stopped');
    expect(await run(grandchild, 'cat gen; test ! -e same-600 && echo gone')).toBe('gen1\ngen2\ngone\n');
    // Checkpoint and restore in the overlay.
    const checkpoint = await t.call(grandchild, 'checkpoint_create', {});
    await run(grandchild, 'rm -r src && echo x > gen');
    expect(
      (await t.call(grandchild, 'checkpoint_restore', { checkpoint: checkpoint.body.data.id })).status,
    ).toBe(200);
    expect(await run(grandchild, 'cat gen src/a.txt')).toBe('gen1\ngen2\na\n');
  });

  it('cannot reach the parent, the store or the layers from inside the child', async (ctx) => {
    if (!overlay) ctx.skip(why);
    const parent = await seeded();
    const child = await fork(parent);
    const mountinfo = await run(child, 'cat /proc/self/mountinfo');
    // The overlay names its layers relative to the forks dir; no layer's host path shows.
    expect(mountinfo).toMatch(/ \/workspace .* overlay overlay .*lowerdir=trees\//);
    expect(mountinfo).not.toContain(forksDir());
    expect(mountinfo).not.toContain(path.join(t.dataDir, 'workspaces'));
    const paths = [
      path.join(t.dataDir, 'workspaces', parent.id),
      path.join(t.dataDir, 'snapshots'),
      forksDir(),
      t.dataDir,
    ];
    expect(await run(child, paths.map((p) => `test -e ${p} && echo seen ${p}`).join('; ') + '; true')).toBe(
      '',
    );
    // Writing a file of the lower tree in place (same inode for a command that opens it) copies it up.
    await run(child, 'printf X | dd of=r.bin conv=notrunc 2>/dev/null');
    expect(await run(parent, 'head -c 1 r.bin | od -An -c')).not.toContain('X');
  });

  it('removes the upper dir, the lower tree and unused blob inodes with the last session', async (ctx) => {
    if (!overlay) ctx.skip(why);
    const parent = await seeded();
    const a = await fork(parent);
    const b = await fork(parent);
    await run(a, 'echo a > mine');
    const trees = () => readdirSync(path.join(forksDir(), 'trees'));
    const tree = JSON.parse(readFileSync(path.join(forksDir(), 'sessions', a.id, 'layers.json'), 'utf8'))
      .lowers[0] as string;
    // Two forks of the same state share one lower tree.
    expect(trees()).toContain(tree);
    expect(readdirSync(path.join(forksDir(), 'trees', tree, 'users')).sort()).toEqual([a.id, b.id].sort());

    expect((await t.admin(t.http.delete(`/v1/sessions/${a.id}`))).status).toBe(204);
    expect(existsSync(path.join(forksDir(), 'sessions', a.id))).toBe(false);
    expect(trees()).toContain(tree);
    expect(await run(b, 'cat src/a.txt')).toBe('a\n');
    expect((await t.admin(t.http.delete(`/v1/sessions/${b.id}`))).status).toBe(204);
    expect((await t.admin(t.http.delete(`/v1/sessions/${parent.id}`))).status).toBe(204);
    expect(trees()).not.toContain(tree);
    expect(existsSync(path.join(forksDir(), 'sessions', b.id))).toBe(false);
    expect(existsSync(path.join(t.dataDir, 'workspaces', b.id))).toBe(false);
    // Blob inodes that no tree and no snapshot store links to any more are gone too.
    const blobs = path.join(forksDir(), 'blobs');
    for (const name of readdirSync(blobs))
      expect(statSync(path.join(blobs, name)).nlink, name).toBeGreaterThan(1);
  });

  it('keeps a fork over a service restart, and sweeps what deleted sessions left behind', async (ctx) => {
    if (!overlay) ctx.skip(why);
    const dataDir = tempDir('toolgate-fork-restart-');
    let app = await startApp({}, { dataDir });
    const parent = await app.createSession({ files: { 'kept.txt': 'kept\n' } });
    const res = await app.admin(app.http.post(`/v1/sessions/${parent.id}/fork`)).send({});
    expect(res.body.copy).toBe('overlay');
    const child = res.body as Session;
    expect((await app.call(child, 'run_command', { command: 'echo mine > mine' })).body.data.exitCode).toBe(
      0,
    );
    await app.close({ keepData: true });
    // Left behind by a crash mid-delete: the overlay dirs of a session that no longer exists, and its use
    // of a tree that nobody else uses.
    const forks = path.join(dataDir, 'forks');
    mkdirSync(path.join(forks, 'sessions', 'ses_gone', 'upper'), { recursive: true });
    const orphanTree = path.join(forks, 'trees', 'f'.repeat(64));
    mkdirSync(path.join(orphanTree, 'users'), { recursive: true });
    writeFileSync(path.join(orphanTree, 'users', 'ses_gone'), '');

    app = await startApp({}, { dataDir });
    try {
      expect(existsSync(path.join(forks, 'sessions', 'ses_gone'))).toBe(false);
      expect(existsSync(orphanTree)).toBe(false);
      const read = await app.call(child, 'run_command', { command: 'cat kept.txt mine' });
      expect(read.body.data.stdout).toBe('kept\nmine\n');
    } finally {
      await app.close();
    }
  });
});
