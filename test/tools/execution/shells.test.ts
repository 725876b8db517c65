// Persistent shells through the API: state carried across calls (cd, export, a function, an alias, a
// venv), the timeout that interrupts a command and keeps the shell, one command at a time (409),
// restart that loses the state, a killed shell reported dead, and the limit on shells per session.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, tempDir, type InjectApp } from '../../helpers/app.js';
import { bwrapElseNone } from '../../helpers/requires.js';

const hasPythonVenv = (() => {
  try {
    execFileSync('python3', ['-c', 'import venv, ensurepip'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('persistent shells', () => {
  const sandbox = bwrapElseNone();
  let t: InjectApp;
  let s: { id: string; token: string };
  const exec = (input: Record<string, unknown>) => t.call(s, 'shell_exec', input);

  beforeAll(async () => {
    const configFile = path.join(tempDir('toolgate-config-'), 'config.json');
    writeFileSync(configFile, JSON.stringify({ limits: { outputMaxBytes: 2048, shellsPerSession: 3 } }));
    t = await injectApp({ TOOLGATE_SANDBOX: sandbox, TOOLGATE_CONFIG: configFile });
    s = await t.createSession({ profile: 'execute', files: { 'sub/dir/f.txt': 'x' } });
  });
  afterAll(() => t.close());

  it('keeps cwd, variables, functions and aliases between commands, and reports the cwd', async () => {
    const first = await exec({
      command:
        'cd sub/dir && export GREETING=hello && greet() { echo "$GREETING $1"; } && alias hi="greet alias"',
    });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ shell: 'main', exitCode: 0, cwd: 'sub/dir', opened: true });
    const second = await exec({ command: 'ls; greet fn; hi; echo err >&2; false' });
    expect(second.body.data).toMatchObject({
      exitCode: 1,
      stdout: 'f.txt\nhello fn\nhello alias\n',
      stderr: 'err\n',
      cwd: 'sub/dir',
      opened: false,
      timedOut: false,
    });
    const arrays = await exec({ command: 'declare -a items=(a b); cd ..' });
    expect(arrays.body.data.cwd).toBe('sub');
    expect((await exec({ command: 'echo ${items[1]}' })).body.data.stdout).toBe('b\n');
  });

  it.skipIf(!hasPythonVenv)(
    'keeps an activated venv',
    async () => {
      const made = await exec({
        shell: 'py',
        command: 'python3 -m venv .venv && source .venv/bin/activate',
        timeout_ms: 120_000,
      });
      expect(made.body.data.exitCode).toBe(0);
      const which = await exec({ shell: 'py', command: 'echo "$VIRTUAL_ENV"; command -v python' });
      expect(which.body.data.stdout).toMatch(/\.venv\n.*\.venv\/bin\/python\n$/);
      await t.call(s, 'shell_close', { shell: 'py' });
    },
    180_000,
  );

  it('interrupts a command at its timeout and keeps the shell with its state', async () => {
    await exec({ command: 'export KEPT=yes' });
    const slow = await exec({ command: 'echo start; sleep 30; echo never', timeout_ms: 500 });
    expect(slow.status).toBe(200);
    expect(slow.body.data).toMatchObject({
      timedOut: true,
      exitCode: 130,
      stdout: 'start\n',
      shellDied: false,
    });
    expect(slow.body.data.durationMs).toBeLessThan(5000);
    const after = await exec({ command: 'echo $KEPT' });
    expect(after.body.data.stdout).toBe('yes\n');
  });

  it('stops a loop in the shell itself at its timeout', async () => {
    const loop = await exec({ command: 'while true; do :; done; echo never', timeout_ms: 300 });
    expect(loop.body.data).toMatchObject({ timedOut: true, stdout: '' });
    expect((await exec({ command: 'echo alive' })).body.data.stdout).toBe('alive\n');
  });

  it('runs one command at a time per shell: a second one gets 409 SHELL_BUSY', async () => {
    await t.call(s, 'shell_open', { shell: 'busy' });
    // A request chain is sent when it is awaited: then() sends it now.
    const slow = exec({ shell: 'busy', command: 'sleep 2; echo done' }).then((res) => res);
    await new Promise((r) => setTimeout(r, 700));
    const second = await exec({ shell: 'busy', command: 'echo second' });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('SHELL_BUSY');
    expect((await slow).body.data.stdout).toBe('done\n');
    await t.call(s, 'shell_close', { shell: 'busy' });
  });

  it('restart starts a fresh shell: the state is gone', async () => {
    await exec({ shell: 'r', command: 'cd sub && export GONE=1' });
    const restarted = await t.call(s, 'shell_restart', { shell: 'r' });
    expect(restarted.body.data).toMatchObject({ name: 'r', state: 'idle', cwd: '.' });
    const after = await exec({ shell: 'r', command: 'echo "[$GONE]"; pwd' });
    expect(after.body.data).toMatchObject({ stdout: expect.stringMatching(/^\[\]\n/), cwd: '.' });
    await t.call(s, 'shell_close', { shell: 'r' });
  });

  it('reports a killed shell as dead, and never opens it again behind the caller', async () => {
    const opened = await t.call(s, 'shell_open', { shell: 'victim' });
    expect(opened.status).toBe(200);
    const again = await t.call(s, 'shell_open', { shell: 'victim' });
    expect(again.body.error.code).toBe('ALREADY_EXISTS');
    const died = await exec({ shell: 'victim', command: 'kill -9 $$' });
    expect(died.body.data.shellDied).toBe(true);
    const dead = await exec({ shell: 'victim', command: 'echo hi' });
    expect(dead.status).toBe(409);
    expect(dead.body.error.code).toBe('SHELL_DEAD');
    const listed = await t.call(s, 'shell_list', {});
    expect(listed.body.data.shells).toContainEqual(
      expect.objectContaining({ name: 'victim', state: 'dead' }),
    );
    expect((await t.call(s, 'shell_restart', { shell: 'victim' })).status).toBe(200);
    expect((await exec({ shell: 'victim', command: 'echo back' })).body.data.stdout).toBe('back\n');
    await t.call(s, 'shell_close', { shell: 'victim' });
  });

  it('reports a shell lost with its runtime as dead', async () => {
    await exec({ shell: 'lost', command: 'true' });
    await t.app.services.runtimes.get(s.id)!.stop();
    const dead = await exec({ shell: 'lost', command: 'echo hi' });
    expect(dead.body.error.code).toBe('SHELL_DEAD');
    expect(dead.body.error.message).toMatch(/runtime/);
    await t.call(s, 'shell_close', { shell: 'lost' });
    await t.call(s, 'shell_close', { shell: 'main' });
  });

  it('holds a session to its number of shells', async () => {
    for (const name of ['a', 'b', 'c'])
      expect((await t.call(s, 'shell_open', { shell: name })).status).toBe(200);
    const fourth = await t.call(s, 'shell_open', { shell: 'd' });
    expect(fourth.status).toBe(429);
    expect(fourth.body.error.code).toBe('TOO_MANY_SHELLS');
    for (const name of ['a', 'b', 'c']) await t.call(s, 'shell_close', { shell: name });
  });

  it('caps output to head and tail as run_command does', async () => {
    const big = await exec({ shell: 'cap', command: 'seq 1 5000' });
    expect(big.body.data.truncated).toBe(true);
    expect(big.body.data.stdout).toMatch(/^1\n2\n[\s\S]*bytes omitted[\s\S]*5000\n$/);
    await t.call(s, 'shell_close', { shell: 'cap' });
  });
});
