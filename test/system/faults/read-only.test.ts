// The data dir's file trees remounted read-only while the service runs (an operator's mistake, a volume
// the platform flipped to ro). The kernel refuses to remount read-only a mount on which a file is open for
// writing (EBUSY), and the service always holds the database, its WAL and the audit journal open; so the
// trees where it creates files anew are each a bind mount of their own here, and those flip to ro:
// workspaces, job logs and undo history. Anything that creates, renames or opens a file there for
// writing then gets EROFS. The service stays up, /readyz says what is wrong, every call gets a clear
// envelope (never a 500), reads keep working, and once the mounts are writable again everything recovers
// by itself, audit rows of every acknowledged call included. Needs root. (SQLite's own faults:
// storage.test.ts; a full disk: disk-full.test.ts.)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.js';
import { needs } from '../../helpers/requires.js';

const isRoot = !needs('root', 'the read-only remount tests');

const TREES = ['workspaces', 'jobs', 'history'];

/** A data dir whose file trees are bind mounts of their own; null where mounting is not allowed. */
function dataDirWithTreeMounts(): string | null {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-ro-'));
  try {
    for (const tree of TREES) {
      mkdirSync(path.join(dir, tree), { mode: 0o700 });
      execFileSync('mount', ['--bind', path.join(dir, tree), path.join(dir, tree)], { stdio: 'ignore' });
    }
    return dir;
  } catch (err) {
    console.info(`cannot bind-mount the data dir's trees: ${(err as Error).message}`);
    unmountTrees(dir);
    return null;
  }
}

function unmountTrees(dir: string): void {
  for (const tree of TREES) {
    try {
      execFileSync('umount', ['-l', path.join(dir, tree)], { stdio: 'ignore' });
    } catch {
      // not mounted
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

const remount = (dir: string, mode: 'ro' | 'rw') => {
  for (const tree of TREES) {
    execFileSync('mount', ['-o', `remount,bind,${mode}`, path.join(dir, tree)], { stdio: 'pipe' });
  }
};

describe.skipIf(!isRoot)("the data dir's file trees remounted read-only while serving", () => {
  let dataDir: string | null;
  let t: TestApp;

  beforeAll(async () => {
    dataDir = dataDirWithTreeMounts();
    if (!dataDir) return;
    t = await startApp({}, { dataDir });
  });

  afterAll(async () => {
    if (!dataDir) return;
    try {
      remount(dataDir, 'rw');
    } catch {
      // already writable
    }
    await t?.close({ keepData: true });
    unmountTrees(dataDir);
  });

  it('answers every call with a clear envelope, keeps reading, and recovers when writable again', async (context) => {
    if (!dataDir) {
      console.info('read-only test skipped: cannot bind-mount here');
      context.skip();
    }
    const s = await t.createSession({ profile: 'full', files: { 'a.txt': 'alpha\n' } });
    const bystander = await t.createSession({ files: { 'b.txt': 'beta\n' } });
    const acknowledged: string[] = [];
    const call = async (session: { id: string; token: string }, tool: string, input: unknown) => {
      const res = await t.call(session, tool, input);
      if (res.body.callId) acknowledged.push(res.body.callId);
      expect(res.status, `${tool}: ${JSON.stringify(res.body)}`).not.toBe(500);
      return res;
    };
    expect((await call(s, 'read_file', { path: 'a.txt' })).status).toBe(200);
    // The bystander's runtime is stopped, so its next call starts a runtime on the read-only mount.
    await t.app.services.runtimes.get(bystander.id)?.stop();

    remount(dataDir!, 'ro');
    try {
      expect((await t.http.get('/healthz')).status).toBe(200);
      const ready = await t.http.get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.workspaces).toMatchObject({ ok: false });

      // Reads keep working, in a running runtime and in one started on the read-only mount.
      expect((await call(s, 'read_file', { path: 'a.txt' })).body.data.content).toBe('alpha');
      expect((await call(bystander, 'read_file', { path: 'b.txt' })).body.data.content).toBe('beta');
      expect((await call(bystander, 'grep', { pattern: 'beta' })).status).toBe(200);

      // Writes where the mount is read-only: 503 STORAGE_UNAVAILABLE with a suggestion, nothing torn.
      const write = await call(bystander, 'write_file', { path: 'b.txt', content: 'changed\n' });
      expect(write.status, JSON.stringify(write.body)).toBe(503);
      expect(write.body.error).toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
      expect(write.body.error.suggestion).toBeTruthy();
      expect((await call(bystander, 'read_file', { path: 'b.txt' })).body.data.content).toBe('beta');

      // A command: its log cannot be created; it still runs, and the caller still gets its output.
      const cmd = await call(s, 'run_command', { command: 'echo ran' });
      expect(cmd.status, JSON.stringify(cmd.body)).toBe(200);
      expect(cmd.body.data.stdout).toBe('ran\n');

      // A new session needs a new workspace directory: refused clearly.
      const created = await t.admin(t.http.post('/v1/sessions')).send({});
      expect(created.status).toBe(503);
      expect(created.body.error.code).toBe('STORAGE_UNAVAILABLE');

      // Audit and stats stay readable.
      expect((await t.admin(t.http.get('/v1/audit?limit=5'))).status).toBe(200);
      expect((await t.admin(t.http.get('/v1/stats'))).status).toBe(200);
    } finally {
      remount(dataDir!, 'rw');
    }

    // Writable again: ready, writes and new sessions work, without a restart.
    expect((await t.http.get('/readyz')).status).toBe(200);
    await t.app.services.runtimes.get(bystander.id)?.stop();
    expect((await call(bystander, 'write_file', { path: 'b.txt', content: 'changed\n' })).status).toBe(200);
    const after = await t.createSession({ files: { 'c.txt': 'gamma\n' } });
    expect((await call(after, 'read_file', { path: 'c.txt' })).body.data.content).toBe('gamma');

    const audit = await t.admin(t.http.get('/v1/audit?limit=500'));
    const audited = new Set((audit.body.entries as { callId: string }[]).map((entry) => entry.callId));
    expect(acknowledged.filter((id) => !audited.has(id))).toEqual([]);
  }, 60_000);
});
