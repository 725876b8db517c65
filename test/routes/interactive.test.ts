// GET /v1/sessions/{id}/interactive, the console's view of a session's shells, terminals and kernels, on
// the real app with a real shell, terminal and kernel opened through the tools: what each shows (cwd, last
// command and output, the rendered screen), that a look is not a tool call (no audit row, no stats), reads
// no terminal output and is not the runtime's activity, never starts a stopped runtime, and who may look.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../helpers/app.js';

type Session = { id: string; token: string };

const hostHasKernel =
  spawnSync('/usr/bin/python3', ['-c', 'import ipykernel, jupyter_client'], { stdio: 'ignore' }).status === 0;
if (!hostHasKernel)
  console.warn(
    'skipped the kernel in the interactive view: needs python3-ipykernel and python3-jupyter-client',
  );

describe('GET /v1/sessions/{id}/interactive', () => {
  let t: InjectApp;
  let agent: Session;
  let other: Session;
  const look = (session: Session, token = session.token) =>
    t.http.get(`/v1/sessions/${session.id}/interactive`).set('authorization', `Bearer ${token}`);
  const auditCount = async (session: Session) =>
    (await t.admin(t.http.get(`/v1/audit?sessionId=${session.id}&operatorReads=true&limit=1000`)).expect(200))
      .body.entries.length as number;

  beforeAll(async () => {
    t = await injectApp();
    agent = await t.createSession({ profile: 'execute' });
    other = await t.createSession({ profile: 'execute' });
  });
  afterAll(() => t.close());

  it('of a session whose runtime never started: empty, and the runtime is not started by the look', async () => {
    const res = await t.admin(t.http.get(`/v1/sessions/${other.id}/interactive`)).expect(200);
    expect(res.body).toEqual({ runtime: 'stopped', shells: [], terminals: [], kernels: [] });
    expect(t.app.services.runtimes.get(other.id)?.state ?? 'stopped').toBe('stopped');
  });

  it("shows a shell's cwd, last command and output, and a terminal's screen, without a tool call", async () => {
    const ran = await t
      .call(agent, 'shell_exec', { command: 'mkdir -p sub && cd sub && echo hello-from-shell; false' })
      .expect(200);
    expect(ran.body.data.cwd).toBe('sub');
    const started = await t
      .call(agent, 'exec_command', {
        cmd: 'printf \'screen-line\\n\'; read -r answer; echo "got $answer"; sleep 60',
        yield_time_ms: 300,
      })
      .expect(200);
    const terminalId = started.body.data.terminalId as string;
    expect(started.body.data.running).toBe(true);
    const audited = await auditCount(agent);
    const stats = (await t.admin(t.http.get(`/v1/stats?sessionId=${agent.id}`)).expect(200)).body.totals
      .total;
    const runtime = t.app.services.runtimes.get(agent.id)!;
    const activity = runtime.lastActivity;

    const res = await t.admin(t.http.get(`/v1/sessions/${agent.id}/interactive`)).expect(200);
    expect(res.body.runtime).toBe('running');
    expect(res.body.shells).toHaveLength(1);
    expect(res.body.shells[0]).toMatchObject({
      name: 'main',
      state: 'idle',
      cwd: 'sub',
      commands: 1,
      lastCommand: 'mkdir -p sub && cd sub && echo hello-from-shell; false',
      lastExitCode: 1,
    });
    expect(res.body.shells[0].lastOutput).toContain('hello-from-shell');
    expect(res.body.terminals).toHaveLength(1);
    expect(res.body.terminals[0]).toMatchObject({
      terminalId,
      running: true,
      exitCode: null,
      rows: 24,
      cols: 80,
    });
    expect(res.body.terminals[0].screen[0]).toBe('screen-line');
    expect(res.body.terminals[0].cursor).toEqual({ row: 1, col: 0 });
    expect(res.body.kernels).toEqual([]);

    // Not the agent's call: no audit row (not even an operator read), nothing in the stats, and not
    // the runtime's activity (a console left open keeps no runtime from its idle stop).
    expect(await auditCount(agent)).toBe(audited);
    const after = (await t.admin(t.http.get(`/v1/stats?sessionId=${agent.id}`)).expect(200)).body.totals
      .total;
    expect(after).toBe(stats);
    expect(runtime.lastActivity).toBe(activity);

    // The screen follows the program; what it printed stays unread for the agent's next write_stdin.
    await t
      .call(agent, 'write_stdin', { session_id: terminalId, chars: 'yes\n', yield_time_ms: 0 })
      .expect(200);
    let screen: string[] = [];
    for (let i = 0; i < 100 && !screen.includes('got yes'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      screen = (await look(agent).expect(200)).body.terminals[0].screen;
    }
    expect(screen).toEqual(['screen-line', 'yes', 'got yes']);
    const polled = await t
      .call(agent, 'write_stdin', { session_id: terminalId, chars: '', yield_time_ms: 0 })
      .expect(200);
    expect(polled.body.data.output).toContain('got yes');
    await t.call(agent, 'terminal_close', { session_id: terminalId }).expect(200);
    expect((await look(agent).expect(200)).body.terminals).toEqual([]);
  });

  it('shows a shell running a command as busy, with that command', async () => {
    // Sent now (a request chain is sent when awaited), answered once the command ends.
    const running = Promise.resolve(
      t.call(agent, 'shell_exec', { shell: 'second', command: 'sleep 1.5; echo slept' }).expect(200),
    );
    let second: { state: string; lastCommand?: string } | undefined;
    for (let i = 0; i < 100 && second?.state !== 'busy'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const { shells } = (await look(agent).expect(200)).body as {
        shells: { name: string; state: string }[];
      };
      second = shells.find((shell) => shell.name === 'second');
    }
    expect(second).toMatchObject({ state: 'busy', lastCommand: 'sleep 1.5; echo slept' });
    expect((await running).body.data.stdout).toBe('slept\n');
    const { shells } = (await look(agent).expect(200)).body as { shells: { name: string; state: string }[] };
    expect(shells.find((shell) => shell.name === 'second')).toMatchObject({ state: 'idle', lastExitCode: 0 });
    await t.call(agent, 'shell_close', { shell: 'second' }).expect(200);
  });

  it.skipIf(!hostHasKernel)('shows a kernel and whether it runs a cell', { timeout: 60_000 }, async () => {
    await t.call(agent, 'run_code', { code: 'x = 1' }).expect(200);
    const res = await look(agent).expect(200);
    expect(res.body.kernels).toMatchObject([
      { kernel: 'default', language: 'python', busy: false, executions: 1 },
    ]);
    await t.call(agent, 'kernel_close', { kernel: 'default' }).expect(200);
    expect((await look(agent).expect(200)).body.kernels).toEqual([]);
  });

  it('the session itself may look at its own, not at another session; no token is 401', async () => {
    await look(agent).expect(200);
    const refused = await look(agent, other.token).expect(404);
    expect(refused.body.error.code).toBe('SESSION_NOT_FOUND');
    await t.http.get(`/v1/sessions/${agent.id}/interactive`).expect(401);
  });

  it('after the runtime stopped: its shells reported dead, and the look does not start it again', async () => {
    const runtime = t.app.services.runtimes.get(agent.id)!;
    await runtime.stop();
    const res = await look(agent).expect(200);
    expect(res.body.runtime).toBe('stopped');
    expect(res.body.shells).toMatchObject([{ name: 'main', state: 'dead' }]);
    expect(res.body.shells[0].deadReason).toMatch(/runtime stopped/);
    expect(res.body.terminals).toEqual([]);
    expect(runtime.state).toBe('stopped');
  });
});
