// Background jobs end to end: start, input, wait, read with a cursor, list, kill; jobs die with their
// session and with the app.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../../helpers/app.js';
import { eventually, isAlive, pidsWithArgv } from './processes.js';
import { bwrapElseNone } from '../../helpers/requires.js';

describe('background jobs', () => {
  let t: InjectApp;
  let s: { id: string; token: string };
  const call = (tool: string, input: Record<string, unknown>, session = s) => t.call(session, tool, input);

  beforeAll(async () => {
    t = await injectApp({ TOOLGATE_SANDBOX: bwrapElseNone() });
    s = await t.createSession({ profile: 'execute' });
  });
  afterAll(() => t.close());

  it('starts at once, takes input, and is read to the end with a cursor', async () => {
    const started = await call('run_command', {
      command:
        'read name; echo "hello $name"; for i in 1 2 3; do echo "tick $i"; sleep 0.05; done; echo bye >&2',
      background: true,
    });
    expect(started.status).toBe(200);
    const { jobId } = started.body.data;
    expect(started.body.data).toMatchObject({ background: true, status: 'running', exitCode: null });

    const listed = await call('job_list', { running_only: true });
    expect(listed.body.data.jobs.map((j: { jobId: string }) => j.jobId)).toContain(jobId);

    const input = await call('job_input', { job_id: jobId, input: 'agent\n', close_stdin: true });
    expect(input.body.data).toEqual({ jobId, bytesWritten: 6, stdinOpen: false });

    const waited = await call('job_wait', { job_id: jobId, timeout_ms: 5000 });
    expect(waited.body.data).toMatchObject({ finished: true, job: { status: 'exited', exitCode: 0 } });

    const first = await call('job_output', { job_id: jobId, offset: 0, limit_bytes: 12 });
    expect(first.body.data).toMatchObject({
      output: 'hello agent\n',
      offset: 0,
      nextOffset: 12,
      complete: false,
    });
    const rest = await call('job_output', { job_id: jobId, offset: 12 });
    expect(rest.body.data).toMatchObject({ output: 'tick 1\ntick 2\ntick 3\nbye\n', complete: true });
    expect(rest.body.data.totalBytes).toBe(12 + 25);

    const late = await call('job_input', { job_id: jobId, input: 'x' });
    expect(late.status).toBe(409);
    const past = await call('job_output', { job_id: jobId, offset: 10_000 });
    expect(past.body.error.code).toBe('OFFSET_OUT_OF_RANGE');
  });

  it('returns finished: false when the wait times out, and kills on request', async () => {
    const started = await call('run_command', { command: 'sleep 30', background: true });
    const { jobId } = started.body.data;
    const waited = await call('job_wait', { job_id: jobId, timeout_ms: 200 });
    expect(waited.body.data).toMatchObject({ finished: false, job: { status: 'running' } });
    const killed = await call('job_kill', { job_id: jobId });
    expect(killed.body.data).toMatchObject({ killed: true, job: { status: 'killed', killReason: 'killed' } });
    const again = await call('job_kill', { job_id: jobId });
    expect(again.body.data.killed).toBe(false);
  });

  it('never splits a multi-byte character across job_output pages', async () => {
    const text = 'héllo wörld € 🚀\n';
    const res = await call('run_command', { command: `printf '%s' '${text}'` });
    let offset = 0;
    const pages: string[] = [];
    for (let i = 0; i < 40; i++) {
      const page = await call('job_output', { job_id: res.body.data.jobId, offset, limit_bytes: 3 });
      pages.push(page.body.data.output);
      offset = page.body.data.nextOffset;
      if (page.body.data.complete) break;
    }
    expect(pages.join('')).toBe(text);
    expect(pages.every((page) => !page.includes('\uFFFD'))).toBe(true);
  });

  it("keeps each session's jobs to itself", async () => {
    const other = await t.createSession({ profile: 'execute' });
    const started = await call('run_command', { command: 'true', background: true });
    const res = await call('job_output', { job_id: started.body.data.jobId }, other);
    expect(res.status).toBe(404);
  });

  it('kills the jobs of a deleted session and removes their logs', async () => {
    const doomed = await t.createSession({ profile: 'execute' });
    const started = await call('run_command', { command: 'sleep 404.25', background: true }, doomed);
    expect(started.status).toBe(200);
    let pids: number[] = [];
    expect(await eventually(() => (pids = pidsWithArgv(['sleep', '404.25'])).length === 1)).toBe(true);
    const logDir = path.join(t.dataDir, 'jobs', doomed.id);
    expect(existsSync(logDir)).toBe(true);
    const del = await t.admin(t.http.delete(`/v1/sessions/${doomed.id}`));
    expect(del.status).toBe(204);
    expect(await eventually(() => !isAlive(pids[0]), 2000)).toBe(true);
    expect(existsSync(logDir)).toBe(false);
  });

  it('kills running jobs when the app closes', async () => {
    const other = await injectApp({ TOOLGATE_SANDBOX: bwrapElseNone() });
    const session = await other.createSession({ profile: 'execute' });
    await other.call(session, 'run_command', { command: 'sleep 405.25', background: true });
    let pids: number[] = [];
    expect(await eventually(() => (pids = pidsWithArgv(['sleep', '405.25'])).length === 1)).toBe(true);
    await other.close();
    expect(await eventually(() => !isAlive(pids[0]), 2000)).toBe(true);
  });

  it('refuses more running jobs than the per-session limit', async () => {
    const busy = await t.createSession({ profile: 'execute' });
    const limit = t.app.services.jobs.limits.maxRunningPerSession;
    for (let i = 0; i < limit; i++) {
      expect((await call('run_command', { command: 'sleep 30', background: true }, busy)).status).toBe(200);
    }
    const refused = await call('run_command', { command: 'true' }, busy);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('TOO_MANY_JOBS');
    await t.admin(t.http.delete(`/v1/sessions/${busy.id}`));
  });
});
