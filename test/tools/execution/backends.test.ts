// How the sandbox backend is chosen and reported: none is run but flagged unisolated; without a working
// bwrap the execution tools are listed as disabled and refuse with 503.
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { injectApp, tempDir, type InjectApp } from '../../helpers/app.js';
import { eventually, isAlive, pidsWithArgv } from './processes.js';

describe('sandbox backends', () => {
  let t: InjectApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('runs unisolated with TOOLGATE_SANDBOX=none and says so everywhere', async () => {
    t = await injectApp({ TOOLGATE_SANDBOX: 'none' });
    const s = await t.createSession({ profile: 'execute' });
    const res = await t.call(s, 'run_command', {
      command: 'echo $HOME; test -d /workspace || echo no-workspace-mount',
    });
    expect(res.status).toBe(200);
    expect(res.body.data.sandbox).toEqual({ backend: 'none', isolated: false });
    expect(res.body.data.stdout).toBe('/tmp\nno-workspace-mount\n');
    const text = t.app.services.registry.get('run_command')!.tool.render!(res.body.data);
    expect(text).toContain('[unsandboxed]');
    const ready = await t.http.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.sandbox).toMatchObject({
      ok: true,
      backend: 'none',
      isolated: false,
      executionEnabled: true,
    });
    expect(ready.body.checks.sandbox.detail).toMatch(/UNISOLATED/);
  });

  it('kills a timed-out command and its children with the none backend too', async () => {
    t = await injectApp({ TOOLGATE_SANDBOX: 'none' });
    const s = await t.createSession({ profile: 'execute' });
    const pending = t.call(s, 'run_command', {
      command: 'sleep 20.75 & sleep 21.75; echo never',
      timeout_ms: 800,
    });
    const done = pending.then((res) => res);
    let pids: number[] = [];
    expect(
      await eventually(
        () =>
          (pids = [...pidsWithArgv(['sleep', '20.75']), ...pidsWithArgv(['sleep', '21.75'])]).length === 2,
      ),
    ).toBe(true);
    const res = await done;
    expect(res.body.data).toMatchObject({ timedOut: true, stdout: '' });
    expect(await eventually(() => pids.every((pid) => !isAlive(pid)), 2000)).toBe(true);
  });

  it('uses the configured limits.commandTimeoutMs when timeout_ms is not given', async () => {
    const configFile = path.join(tempDir('toolgate-config-'), 'config.json');
    writeFileSync(configFile, JSON.stringify({ limits: { commandTimeoutMs: 400 } }));
    t = await injectApp({ TOOLGATE_SANDBOX: 'none', TOOLGATE_CONFIG: configFile });
    const s = await t.createSession({ profile: 'execute' });
    const res = await t.call(s, 'run_command', { command: 'sleep 5' });
    expect(res.body.data).toMatchObject({ timedOut: true, status: 'killed' });
    expect(res.body.data.durationMs).toBeLessThan(2000);
  });

  it('disables the execution category when auto finds no working bwrap', async () => {
    t = await injectApp({ TOOLGATE_SANDBOX: 'auto' }, { runner: { bwrapPath: '/nonexistent/bwrap' } });
    const s = await t.createSession({ profile: 'execute' });
    const res = await t.call(s, 'run_command', { command: 'true' });
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'SANDBOX_UNAVAILABLE', type: 'system_error' });
    const tools = await t.admin(t.http.get('/v1/tools?category=execution'));
    const runCommand = tools.body.tools.find((tool: { name: string }) => tool.name === 'run_command');
    expect(runCommand.tags).toContain('disabled');
    expect(runCommand.description).toMatch(/^\[DISABLED/);
    const fileTools = await t.admin(t.http.get('/v1/tools/read_file'));
    expect(fileTools.body.tags).not.toContain('disabled');
    const ready = await t.http.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.sandbox).toMatchObject({ ok: true, backend: null, executionEnabled: false });
  });

  it('says once in the log at start that execution is disabled, with the reason and the fix', async () => {
    const lines: string[] = [];
    t = await injectApp(
      { TOOLGATE_SANDBOX: 'auto', LOG_LEVEL: 'info' },
      {
        runner: { bwrapPath: '/nonexistent/bwrap' },
        logger: true,
        logStream: { write: (line) => lines.push(line) },
      },
    );
    const warnings = lines
      .map((line) => JSON.parse(line) as { level: number; msg: string; reason?: string; fix?: string })
      .filter((entry) => entry.level === 40 && /execution is disabled/.test(entry.msg));
    expect(warnings).toHaveLength(1);
    expect(warnings[0].reason).toMatch(/\/nonexistent\/bwrap/);
    expect(warnings[0].fix).toMatch(/docker-compose\.yml/);
    expect(warnings[0].fix).toMatch(/apparmor=unconfined, systempaths=unconfined/);
    expect(warnings[0].fix).toMatch(/TOOLGATE_SANDBOX=none/);
  });

  it('says nothing of it when the sandbox works', async () => {
    const lines: string[] = [];
    t = await injectApp(
      { TOOLGATE_SANDBOX: 'none', LOG_LEVEL: 'info' },
      { logger: true, logStream: { write: (line) => lines.push(line) } },
    );
    expect(lines.join('')).not.toMatch(/execution is disabled/);
  });

  it('reports not ready when TOOLGATE_SANDBOX=bwrap and bwrap does not work', async () => {
    t = await injectApp({ TOOLGATE_SANDBOX: 'bwrap' }, { runner: { bwrapPath: '/nonexistent/bwrap' } });
    const ready = await t.http.get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.sandbox).toMatchObject({ ok: false, executionEnabled: false });
    expect(ready.body.checks.sandbox.detail).toMatch(/TOOLGATE_SANDBOX=bwrap/);
  });
});
