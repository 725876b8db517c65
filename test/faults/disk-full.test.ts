// The scenario, replayed: the data dir on a small filesystem, a session fills it. The service
// stays up, the command is stopped at the quota (or, without one, its log stops growing and says why),
// /readyz reports the full disk, creating a session on it gets 507, and everything recovers once space
// is freed. Needs root (it mounts a tmpfs); elsewhere it is skipped with the reason printed.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { writeConfigFile } from '../ops/with-config.js';

const MiB = 1024 * 1024;
const isRoot = process.getuid?.() === 0;

function mountTmpfs(sizeMb: number): string | null {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-fault-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
}

const unmount = (dir: string) => {
  execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
  rmSync(dir, { recursive: true, force: true });
};

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
    const s = await t.createSession({ profile: 'full' });
    // The write tools' quota: 3 MB files until the fourth would pass 8 MB.
    const content = 'x'.repeat(3 * MiB);
    expect((await t.call(s, 'write_file', { path: 'a.bin', content })).status).toBe(200);
    expect((await t.call(s, 'write_file', { path: 'b.bin', content })).status).toBe(200);
    const third = await t.call(s, 'write_file', { path: 'c.bin', content });
    expect(third.status).toBe(507);
    expect(third.body.error.code).toBe('QUOTA_EXCEEDED');

    // The command that filled the disk before: stopped at the quota with a clear reason.
    const dd = await t.call(s, 'run_command', { command: 'dd if=/dev/zero of=fill bs=1M count=50' });
    expect(dd.status).toBe(200);
    expect(dd.body.data.job.killReason).toBe('quota');

    // Now fill the disk itself, from outside the service (another tenant, a log file…).
    const filler = path.join(dataDir!, 'filler');
    try {
      execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=1M', 'count=64'], { stdio: 'ignore' });
    } catch {
      // dd stops with ENOSPC: the disk is full, which is the point.
    }
    expect((await t.http.get('/healthz')).status).toBe(200);
    const ready = await t.http.get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.disk.ok).toBe(false);
    expect(ready.body.checks.disk.detail).toMatch(/nearly full/);

    // A command whose output cannot be logged: it runs on, the log says why it stopped growing.
    const chatty = await t.call(s, 'run_command', {
      command: 'rm -f fill; head -c 300000 /dev/zero | tr "\\0" x; echo done',
    });
    expect(chatty.status).toBe(200);
    expect(chatty.body.data.stdout).toContain('done');

    // A new session on a full disk: a clear 507, not a 500.
    const created = await t
      .admin(t.http.post('/v1/sessions'))
      .send({ files: { 'big.txt': 'y'.repeat(MiB) } });
    expect([201, 507]).toContain(created.status);
    if (created.status === 507)
      expect(created.body.error.code).toMatch(/INSUFFICIENT_STORAGE|QUOTA_EXCEEDED/);

    // The service kept serving throughout; free the space and it is ready again.
    unlinkSync(filler);
    const again = await t.http.get('/readyz');
    expect(again.body.checks.disk.ok).toBe(true);
    const after = await t.createSession({ files: { 'ok.txt': 'fine\n' } });
    expect((await t.call(after, 'read_file', { path: 'ok.txt' })).body.data.content).toBe('fine');
    writeFileSync(path.join(dataDir!, 'probe'), 'x');
  });
});
