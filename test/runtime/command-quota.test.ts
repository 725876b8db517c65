// The workspace quota binds commands too: one big file stops at the room that is left (RLIMIT_FSIZE),
// many small ones are caught by the runtime's usage watch; either way the job is killed with
// killReason "quota", and GET /v1/sessions/{id} shows what is used.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectApp } from '../helpers/app.js';
import { injectAppWithConfig } from '../ops/with-config.js';

const MiB = 1024 * 1024;

describe('workspace quota for commands', () => {
  let t: InjectApp;
  beforeAll(async () => {
    t = await injectAppWithConfig({ limits: { workspaceMaxBytes: 4 * MiB } });
  });
  afterAll(() => t.close());

  it('stops dd at the quota with killReason quota, and shows the usage', async () => {
    const s = await t.createSession({ profile: 'full' });
    const res = await t.call(s, 'run_command', { command: 'dd if=/dev/zero of=fill bs=1M count=50' });
    expect(res.status).toBe(200);
    expect(res.body.data.job.killReason).toBe('quota');
    const info = await t.http.get(`/v1/sessions/${s.id}`).set('authorization', `Bearer ${s.token}`);
    expect(info.status).toBe(200);
    expect(info.body.usage.limitBytes).toBe(4 * MiB);
    expect(info.body.usage.bytes).toBeLessThanOrEqual(4 * MiB);
    expect(info.body.usage.files).toBe(1);
    // The service is fine and the session goes on: free space, write again.
    await t.call(s, 'run_command', { command: 'rm fill' }).expect(200);
    const again = await t.call(s, 'run_command', { command: 'head -c 1000 /dev/zero > small && echo ok' });
    expect(again.body.data.stdout).toBe('ok\n');
  });

  it('stops a command that writes many small files past the quota', async () => {
    const s = await t.createSession({ profile: 'full' });
    const res = await t.call(s, 'run_command', {
      command: 'for i in $(seq 1 400); do head -c 100000 /dev/zero > f$i; sleep 0.01; done; echo finished',
      timeout_ms: 60_000,
    });
    expect(res.status).toBe(200);
    expect(res.body.data.job.killReason).toBe('quota');
    expect(res.body.data.stdout).not.toContain('finished');
    const info = await t.admin(t.http.get(`/v1/sessions/${s.id}`));
    expect(info.body.usage.bytes).toBeGreaterThan(4 * MiB);
    expect(info.body.usage.bytes).toBeLessThan(20 * MiB);
  });

  it('holds a command started right after another one that used most of the quota', async () => {
    const s = await t.createSession({ profile: 'full' });
    const first = await t.call(s, 'run_command', { command: 'head -c 3500000 /dev/zero > first' });
    expect(first.body.data.exitCode).toBe(0);
    // Started at once: the numbers from before the first command may still be all the runtime has.
    const second = await t.call(s, 'run_command', { command: 'dd if=/dev/zero of=second bs=1M count=50' });
    expect(second.body.data.job.killReason).toBe('quota');
    const info = await t.admin(t.http.get(`/v1/sessions/${s.id}`));
    // Over by at most what the first command wrote (its rescan was under way), never by the 50 MB.
    expect(info.body.usage.bytes).toBeLessThanOrEqual(4 * MiB + 3_500_000);
    console.info(`quota 4 MiB: usage after the second command ${info.body.usage.bytes} bytes`);
  });
});
