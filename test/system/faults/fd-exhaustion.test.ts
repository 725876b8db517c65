// File descriptors run out (EMFILE): a server whose RLIMIT_NOFILE is lowered, while it runs, to a few
// dozen above what it holds, then made to start a runtime per session until no descriptor is left. Each
// call gets a clear envelope (never a 500), the process stays up, and once descriptors are free again
// (sessions deleted, runtimes stopped) new sessions work, without a restart. Uses prlimit(1) from
// util-linux on the child's pid; skipped with the reason printed where it is missing.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/app.js';
import { testSandbox } from '../../helpers/requires.js';
import {
  CHILD_ADMIN_KEY,
  callTool,
  childSession,
  startChildServer,
  type ChildServer,
} from '../../ops/child-server.js';

const hasPrlimit = spawnSync('prlimit', ['--version']).status === 0;

const openFds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;
const setFdLimit = (pid: number, limit: number) =>
  execFileSync('prlimit', [`--pid=${pid}`, `--nofile=${limit}:${limit}`], { stdio: 'ignore' });

describe('file descriptors exhausted (EMFILE)', () => {
  let server: ChildServer;
  beforeAll(async () => {
    if (!hasPrlimit) return;
    server = await startChildServer({
      dataDir: tempDir('toolgate-fds-'),
      env: { LOG_LEVEL: 'error', TOOLGATE_SANDBOX: testSandbox() },
    });
  });
  afterAll(async () => {
    if (!server) return;
    server.proc.kill('SIGKILL');
    await server.exited;
  });

  it('answers with clear errors, stays up and recovers when descriptors are free', async (context) => {
    if (!hasPrlimit) {
      console.info('fd-exhaustion test skipped: prlimit(1) is not installed');
      context.skip();
    }
    const pid = server.proc.pid!;
    // Warm up: one session, so the lazily opened parts (statements, the journal) hold their descriptors.
    const first = await childSession(server, { files: { 'a.txt': 'a\n' } });
    expect((await first.call('read_file', { path: 'a.txt' })).status).toBe(200);
    const base = openFds(pid);
    setFdLimit(pid, base + 40);

    const statuses = new Map<number, number>();
    const sessions: Array<{ id: string; token: string }> = [];
    // With no descriptor left, the kernel cannot even hand the server a new connection: libuv accepts
    // and closes it, and the client sees the socket closed (status 0 below). That, a 503 or a 507 with
    // a suggestion are the answers allowed; a 500 or an exit is not.
    const attempt = async (i: number): Promise<number> => {
      const created = await server.admin('/v1/sessions', {
        method: 'POST',
        body: JSON.stringify({ files: { 'f.txt': `file ${i}\n` } }),
      });
      let res: Response = created;
      if (created.status === 201) {
        const session = (await created.json()) as { id: string; token: string };
        sessions.push(session);
        res = await callTool(server.url, session, 'read_file', { path: 'f.txt' });
      }
      const body = (await res.json().catch(() => null)) as { error?: { suggestion?: string } } | null;
      expect([200, 503, 507], JSON.stringify(body)).toContain(res.status);
      if (res.status !== 200) expect(body?.error?.suggestion, JSON.stringify(body)).toBeTruthy();
      return res.status;
    };
    let failures = 0;
    for (let i = 0; i < 60 && failures < 5; i++) {
      const status = await attempt(i).catch((err: Error) => {
        if (!/fetch failed/.test(err.message)) throw err;
        return 0;
      });
      if (status !== 200) failures++;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      expect(server.proc.exitCode, server.logs.join('\n')).toBeNull();
    }
    console.info(
      `fd exhaustion at ${base + 40} descriptors: statuses ${JSON.stringify(Object.fromEntries(statuses))} ` +
        '(0: connection closed at accept)',
    );
    expect(failures).toBeGreaterThan(0);
    expect(server.proc.exitCode).toBeNull();

    // Free descriptors: delete the sessions (their runtimes stop); the service recovers by itself. The
    // first deletes may still find no descriptor for their connection, so each is retried.
    for (const session of sessions) {
      for (let tries = 0; tries < 40; tries++) {
        const res = await fetch(`${server.url}/v1/sessions/${session.id}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${CHILD_ADMIN_KEY}` },
        }).catch(() => null);
        if (res?.status === 204 || res?.status === 404) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const after = await childSession(server, { files: { 'b.txt': 'b\n' } });
    const read = await after.call('read_file', { path: 'b.txt' });
    expect(read.status).toBe(200);
    expect((await first.call('read_file', { path: 'a.txt' })).status).toBe(200);
    expect(server.proc.exitCode).toBeNull();
  }, 120_000);
});
