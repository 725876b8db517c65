// The session runtime: started on first use, restarted after a crash (503 RUNTIME_UNAVAILABLE for the
// calls it took down, never for other sessions), stopped when idle, visible to the admin and in /metrics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { injectApp, type InjectApp } from '../helpers/app.js';
import { sandboxesFor } from '../helpers/requires.js';
import { injectAppWithConfig } from '../ops/with-config.js';

const SANDBOXES = sandboxesFor('the session runtime tests');

describe.each(SANDBOXES)('session runtime (TOOLGATE_SANDBOX=%s)', (sandbox) => {
  let t: InjectApp;
  beforeAll(async () => {
    t = await injectApp({ TOOLGATE_SANDBOX: sandbox });
  });
  afterAll(() => t.close());

  const runtimeOf = async (id: string) =>
    (await t.admin(t.http.get(`/v1/sessions/${id}`))).body.runtime as Record<string, unknown>;

  it('starts on the first workspace call and reports itself to the admin', async () => {
    const s = await t.createSession({ profile: 'full' });
    // Creating a session starts nothing (a GET of the session would: it asks the runtime for the usage).
    expect(t.app.services.runtimes.get(s.id)?.state ?? 'stopped').toBe('stopped');
    const run = await t.call(s, 'run_command', { command: 'printf hello > a.txt' });
    expect(run.status).toBe(200);
    const read = await t.call(s, 'read_file', { path: 'a.txt' });
    expect(read.status).toBe(200);
    expect(read.body.data.content).toBe('hello');
    const runtime = await runtimeOf(s.id);
    expect(runtime.state).toBe('running');
    expect(runtime.isolated).toBe(sandbox !== 'none' && t.app.services.runner.status.isolated);
    expect(runtime.rssBytes).toBeGreaterThan(1_000_000);
    // A session token sees its session, not the runtime's internals.
    const own = await t.http.get(`/v1/sessions/${s.id}`).set('authorization', `Bearer ${s.token}`);
    expect(own.body.runtime).toBeUndefined();
  });

  it('a killed runtime fails only its own calls, with 503, and comes back on the next call', async () => {
    const victim = await t.createSession({ profile: 'full' });
    const bystander = await t.createSession({ profile: 'full' });
    await t.call(victim, 'run_command', { command: 'echo x > f.txt' }).expect(200);
    await t.call(bystander, 'run_command', { command: 'echo y > g.txt' }).expect(200);
    // then() sends the request now (a supertest request is lazy).
    const pending = t.call(victim, 'run_command', { command: 'sleep 30' }).then((r) => r);
    await new Promise((r) => setTimeout(r, 300));
    const runtime = t.app.services.runtimes.get(victim.id)!;
    process.kill(runtime.pid!, 'SIGKILL');
    const res = await pending;
    // The command died with its runtime: reported as killed by SIGKILL, not left hanging.
    expect(res.status).toBe(200);
    expect(res.body.data.signal).toBe('SIGKILL');
    const bystanderRead = await t.call(bystander, 'read_file', { path: 'g.txt' });
    expect(bystanderRead.status).toBe(200);
    const again = await t.call(victim, 'read_file', { path: 'f.txt' });
    expect(again.status).toBe(200);
    expect(again.body.data.content).toBe('x');
    const metrics = await t.admin(t.http.get('/metrics'));
    expect(metrics.text).toMatch(/toolgate_runtime_crashes_total [1-9]/);
    expect(metrics.text).toMatch(/toolgate_runtimes \d+/);
  });

  it('refuses a FIFO at once instead of hanging', async () => {
    const s = await t.createSession({ profile: 'full' });
    await t.call(s, 'run_command', { command: 'mkfifo pipe' }).expect(200);
    const res = await t.call(s, 'read_file', { path: 'pipe' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('NOT_A_FILE');
  });

  it('gives commands PYTHONDONTWRITEBYTECODE=1 unless the call overrides it', async () => {
    const s = await t.createSession({ profile: 'full' });
    const plain = await t.call(s, 'run_command', { command: 'echo "$PYTHONDONTWRITEBYTECODE"' });
    expect(plain.body.data.stdout).toBe('1\n');
    const over = await t.call(s, 'run_command', {
      command: 'echo "[$PYTHONDONTWRITEBYTECODE]"',
      env: { PYTHONDONTWRITEBYTECODE: '' },
    });
    expect(over.body.data.stdout).toBe('[]\n');
  });
});

describe('idle runtimes', () => {
  it('are stopped after the idle period and restarted transparently', async () => {
    const t = await injectApp({ TOOLGATE_RUNTIME_IDLE_SECONDS: '1' });
    try {
      const s = await t.createSession({ profile: 'full' });
      await t.call(s, 'run_command', { command: 'echo 1 > n' }).expect(200);
      expect(t.app.services.runtimes.get(s.id)!.state).toBe('running');
      await new Promise((r) => setTimeout(r, 1600));
      expect(t.app.services.runtimes.get(s.id)!.state).toBe('stopped');
      const read = await t.call(s, 'read_file', { path: 'n' });
      expect(read.status).toBe(200);
      expect(t.app.services.runtimes.get(s.id)!.starts).toBe(2);
    } finally {
      await t.close();
    }
  });
});

describe('a hung runtime', () => {
  it('is killed when it stops answering, its call gets 503, and the next call works', async () => {
    const t = await injectAppWithConfig({ runtime: { hangSeconds: 1 } });
    try {
      const s = await t.createSession({ profile: 'full' });
      await t.call(s, 'run_command', { command: 'echo ok > f' }).expect(200);
      const runtime = t.app.services.runtimes.get(s.id)!;
      // SIGSTOP the runtime process (the node inside bwrap, found as the child that answers pings: in the
      // none backend it is the process itself; with bwrap, stopping bwrap's whole tree does the same).
      const stopped = stopTree(runtime.pid!);
      const res = await t.call(s, 'read_file', { path: 'f' });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('RUNTIME_UNAVAILABLE');
      expect(res.body.error.suggestion).toMatch(/Retry/);
      for (const pid of stopped) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // gone with the runtime
        }
      }
      const again = await t.call(s, 'read_file', { path: 'f' });
      expect(again.status).toBe(200);
      expect(again.body.data.content).toBe('ok');
    } finally {
      await t.close();
    }
  });
});

/** SIGSTOPs a process and its descendants (host pids), returning them. */
function stopTree(root: number): number[] {
  const all: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    all.push(pid);
    try {
      queue.push(
        ...readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
      );
    } catch {
      // exited
    }
  }
  for (const pid of all) process.kill(pid, 'SIGSTOP');
  return all;
}
