// run_command through the API: results, cwd, env, stdin, output caps with the full log, idle timeout,
// detaching into a background job.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, tempDir, type InjectApp } from '../../helpers/app.js';
import { bwrapElseNone } from '../../helpers/requires.js';

describe('run_command', () => {
  // On bwrap where it works; elsewhere on the unisolated runtime, where the workspace is not /workspace.
  const sandbox = bwrapElseNone();
  let t: InjectApp;
  let s: { id: string; token: string };
  const run = (input: Record<string, unknown>) => t.call(s, 'run_command', input);

  beforeAll(async () => {
    const configFile = path.join(tempDir('toolgate-config-'), 'config.json');
    writeFileSync(configFile, JSON.stringify({ limits: { outputMaxBytes: 2048 } }));
    t = await injectApp({ TOOLGATE_SANDBOX: sandbox, TOOLGATE_CONFIG: configFile });
    s = await t.createSession({ profile: 'execute', files: { 'sub/dir/f.txt': 'x' } });
  });
  afterAll(() => t.close());

  it('returns exit code, stdout and stderr separately', async () => {
    const res = await run({ command: 'echo out; echo err >&2; exit 7' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      exitCode: 7,
      signal: null,
      stdout: 'out\n',
      stderr: 'err\n',
      timedOut: false,
      truncated: false,
      status: 'exited',
      background: false,
    });
    expect(res.body.data.jobId).toMatch(/^job_/);
  });

  it('runs in cwd mapped under /workspace and refuses a cwd outside the workspace', async () => {
    const res = await run({ command: 'pwd; ls', cwd: 'sub/dir' });
    const root = sandbox === 'bwrap' ? '/workspace' : t.app.services.workspaces.dirFor(s.id);
    expect(res.body.data.stdout).toBe(`${root}/sub/dir\nf.txt\n`);
    const outside = await run({ command: 'pwd', cwd: '../..' });
    expect(outside.status).toBe(403);
    expect(outside.body.error.code).toBe('PATH_OUTSIDE_WORKSPACE');
    const missing = await run({ command: 'pwd', cwd: 'nope' });
    expect(missing.status).toBe(404);
    const file = await run({ command: 'pwd', cwd: 'sub/dir/f.txt' });
    expect(file.body.error.code).toBe('NOT_A_DIRECTORY');
  });

  it('passes env and stdin, and refuses a bad variable name', async () => {
    const res = await run({
      command: 'echo "$GREETING"; cat',
      env: { GREETING: 'hello' },
      stdin: 'from stdin',
    });
    expect(res.body.data.stdout).toBe('hello\nfrom stdin');
    const bad = await run({ command: 'true', env: { 'A=B': 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('gives a command without stdin an immediate EOF', async () => {
    const res = await run({ command: 'cat; echo after', timeout_ms: 5000 });
    expect(res.body.data).toMatchObject({ stdout: 'after\n', timedOut: false });
  });

  it('keeps head and tail of long output and the whole of it in the job log', async () => {
    const res = await run({ command: 'seq 1 3000' });
    const data = res.body.data;
    expect(data.truncated).toBe(true);
    expect(data.stdout.startsWith('1\n2\n3\n')).toBe(true);
    expect(data.stdout.endsWith('2999\n3000\n')).toBe(true);
    expect(data.stdout).toMatch(/bytes omitted/);
    let offset = 0;
    let all = '';
    for (let i = 0; i < 20; i++) {
      const page = await t.call(s, 'job_output', { job_id: data.jobId, offset, limit_bytes: 4096 });
      expect(page.status).toBe(200);
      all += page.body.data.output;
      offset = page.body.data.nextOffset;
      if (page.body.data.complete) break;
    }
    const expected = Array.from({ length: 3000 }, (_, i) => `${i + 1}\n`).join('');
    expect(all).toBe(expected);
  });

  it('kills a command that prints nothing for idle_timeout_ms', async () => {
    const res = await run({ command: 'echo started; sleep 20', idle_timeout_ms: 300, timeout_ms: 10_000 });
    expect(res.body.data).toMatchObject({ stdout: 'started\n', timedOut: true, status: 'killed' });
    expect(res.body.data.job.killReason).toBe('idle_timeout');
    expect(res.body.data.durationMs).toBeLessThan(3000);
  });

  it('returns what was printed before the timeout', async () => {
    const res = await run({ command: 'echo before; sleep 20; echo after', timeout_ms: 400 });
    expect(res.body.data).toMatchObject({
      stdout: 'before\n',
      timedOut: true,
      exitCode: null,
      signal: 'SIGKILL',
    });
  });

  it('detaches into a background job after background_after_ms', async () => {
    const res = await run({ command: 'echo first; sleep 0.6; echo second', background_after_ms: 150 });
    expect(res.body.data).toMatchObject({ background: true, status: 'running', stdout: 'first\n' });
    const wait = await t.call(s, 'job_wait', { job_id: res.body.data.jobId, timeout_ms: 5000 });
    expect(wait.body.data).toMatchObject({ finished: true, job: { status: 'exited', exitCode: 0 } });
    const out = await t.call(s, 'job_output', { job_id: res.body.data.jobId });
    expect(out.body.data).toMatchObject({ output: 'first\nsecond\n', complete: true });
  });

  it('runs calls of different sessions in parallel', async () => {
    const other = await t.createSession({ profile: 'execute' });
    // Both runtimes up first: a runtime's start (seconds on a busy machine) is not what is measured.
    expect((await t.call(other, 'run_command', { command: 'true' })).status).toBe(200);
    expect((await run({ command: 'true' })).status).toBe(200);
    // Each command prints when it started and ended (one clock for both sandboxes): the two runs overlap.
    // No wall-clock bound, so a busy machine cannot fail it.
    const command = 'date +%s%N; sleep 2; date +%s%N';
    const [a, b] = await Promise.all([run({ command }), t.call(other, 'run_command', { command })]);
    const span = (stdout: string) => stdout.trim().split('\n').map(BigInt);
    const [aStart, aEnd] = span(a.body.data.stdout);
    const [bStart, bEnd] = span(b.body.data.stdout);
    expect(aStart < bEnd && bStart < aEnd).toBe(true);
  });

  it('renders a compact text for an LLM', async () => {
    const registry = t.app.services.registry;
    const res = await run({ command: 'echo hi; echo oops >&2; exit 2' });
    const text = registry.get('run_command')!.tool.render!(res.body.data);
    const unsandboxed = sandbox === 'bwrap' ? '' : ' [unsandboxed]';
    expect(text).toBe(
      `Exit code 2 after ${res.body.data.durationMs} ms${unsandboxed}\nstdout:\nhi\n\nstderr:\noops\n`,
    );
  });

  it('declares a timeout the pipeline honours beyond its default', () => {
    const tool = t.app.services.registry.get('run_command')!.tool;
    expect(tool.timeoutMs!({ timeout_ms: 600_000, background: false })).toBe(600_000);
    expect(tool.timeoutMs!({ timeout_ms: 600_000, background: false, background_after_ms: 1000 })).toBe(1000);
  });
});
