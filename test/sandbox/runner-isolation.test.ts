// The bwrap sandbox is a boundary: a command sees only its own workspace, no network, no data dir.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { eventually, pidsWithArgv } from '../tools/execution/processes.js';
import { needs } from '../helpers/requires.js';

describe.skipIf(needs('bwrap', 'the bwrap isolation tests'))('run_command with bwrap: isolation', () => {
  let t: TestApp;
  let a: { id: string; token: string };
  let b: { id: string; token: string };
  let port: number;
  let outsideDir: string;
  const run = async (session: { id: string; token: string }, command: string) => {
    const res = await t.call(session, 'run_command', { command, timeout_ms: 10_000 });
    expect(res.status).toBe(200);
    return res.body.data;
  };

  beforeAll(async () => {
    t = await startApp({ TOOLGATE_SANDBOX: 'bwrap' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
    a = await t.createSession({ profile: 'execute' });
    b = await t.createSession({ profile: 'execute', files: { 'secret.txt': 'session b secret' } });
    // A host file outside /tmp, so the private /tmp alone cannot explain the refusal.
    outsideDir = mkdtempSync(path.join(process.cwd(), '.tmp-outside-'));
    writeFileSync(path.join(outsideDir, 'host-secret.txt'), 'host secret');
  });
  afterAll(async () => {
    rmSync(outsideDir, { recursive: true, force: true });
    await t.close();
  });

  it('reports the bwrap backend as isolated', async () => {
    const data = await run(a, 'true');
    expect(data.sandbox).toEqual({ backend: 'bwrap', isolated: true });
    const ready = await t.http.get('/readyz');
    expect(ready.body.checks.sandbox).toMatchObject({ ok: true, backend: 'bwrap', isolated: true });
  });

  it('cannot read a host file outside the workspace by absolute path', async () => {
    const file = path.join(outsideDir, 'host-secret.txt');
    const data = await run(a, `cat ${file}; cat /etc/shadow; ls /root; echo done`);
    expect(data.stdout).toBe('done\n');
    expect(data.stdout + data.stderr).not.toContain('host secret');
    expect(data.stderr).toContain('No such file or directory');
  });

  it("cannot list or read another session's workspace or the data dir", async () => {
    const other = path.join(t.dataDir, 'workspaces', b.id);
    const data = await run(
      a,
      `cat ${other}/secret.txt; ls ${t.dataDir}; ls ${path.join(t.dataDir, 'workspaces')}; ` +
        `cat /workspace/../${b.id}/secret.txt; ls -a /; find / -path /usr -prune -o -path /proc -prune -o -name secret.txt -print 2>/dev/null; echo done`,
    );
    expect(data.stdout + data.stderr).not.toContain('session b secret');
    expect(data.stdout).not.toContain('toolgate.db');
    expect(data.stdout).not.toMatch(/workspaces/);
    expect(data.stdout).not.toContain(b.id);
    expect(data.stdout.trim().endsWith('done')).toBe(true);
    // Session b sees its own file at /workspace.
    expect((await run(b, 'cat /workspace/secret.txt')).stdout).toBe('session b secret');
  });

  it('cannot open a TCP connection to the server on loopback, and has no network but lo', async () => {
    // The server answers on 127.0.0.1 from the host.
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    const bashTcp = await run(
      a,
      `(echo -e "GET /healthz HTTP/1.0\\r\\n\\r\\n" > /dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo CONNECTED || echo REFUSED`,
    );
    expect(bashTcp.stdout.trim()).toBe('REFUSED');
    // The same with a socket library, where python3 is here to make one.
    if (!needs('python3', 'the python3 probe of the loopback isolation test')) {
      const python = await run(
        a,
        `python3 -c "import socket; s=socket.create_connection(('127.0.0.1', ${port}), timeout=2); print('CONNECTED')" 2>&1 | tail -1`,
      );
      expect(python.stdout).not.toContain('CONNECTED');
      expect(python.stdout).toMatch(/refused|unreachable/i);
    }
    const interfaces = await run(a, "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
    expect(interfaces.stdout.trim()).toBe('lo');
  });

  it('runs with a clean environment as an unprivileged user', async () => {
    const data = await run(a, 'env | sort; id -u');
    expect(data.stdout).toContain('HOME=/tmp');
    expect(data.stdout).toContain('PWD=/workspace');
    expect(data.stdout).not.toContain('TOOLGATE');
    expect(data.stdout).not.toContain(t.dataDir);
    expect(data.stdout.trim().split('\n').pop()).toBe('1000');
  });

  it("sets the caller's env inside the sandbox only, never on the host-side bwrap process", async () => {
    const started = await t.call(a, 'run_command', {
      command: 'sleep 407.25',
      env: { LD_PRELOAD: '/workspace/evil.so', CALLER_MARK: 'mark-407' },
      background: true,
    });
    expect(started.status).toBe(200);
    let sleeper: number[] = [];
    expect(await eventually(() => (sleeper = pidsWithArgv(['sleep', '407.25'])).length === 1)).toBe(true);
    const environ = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    expect(environ(sleeper[0])).toContain('CALLER_MARK=mark-407');
    // The host-side process that runs the sandbox is the session runtime's bwrap: the command's
    // environment reaches neither it nor the runtime inside it.
    const runtimePid = t.app.services.runtimes.get(a.id)!.pid!;
    expect(readFileSync(`/proc/${runtimePid}/cmdline`, 'utf8').startsWith('/usr/bin/bwrap\0')).toBe(true);
    const bwraps = [String(runtimePid)];
    expect(bwraps.length).toBeGreaterThan(0);
    for (const pid of bwraps) {
      const env = environ(Number(pid));
      expect(env.some((v) => v.startsWith('LD_PRELOAD=') || v.startsWith('CALLER_MARK='))).toBe(false);
    }
    await t.call(a, 'job_kill', { job_id: started.body.data.jobId });
  });

  it('cannot write outside the workspace and /tmp', async () => {
    const data = await run(
      a,
      'touch /usr/x 2>&1; touch /etc/x 2>&1; touch /x 2>&1; echo ok > /tmp/y && cat /tmp/y',
    );
    expect(data.stdout).toMatch(/Read-only file system|Permission denied/);
    expect(data.stdout.trim().endsWith('ok')).toBe(true);
  });
});
