// POST /v1/evals runs datasets in the background against the service itself: progress, then the report
// (JSON and JUnit), A/B variants and comparison with an earlier run; admin only; bad requests are
// clear errors; runs are kept across a restart; close() waits for a running one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../helpers/app.js';

const CASES = [
  {
    name: 'write then read',
    calls: [
      { tool: 'write_file', input: { path: 'a.txt', content: 'hi\n' } },
      { tool: 'read_file', input: { path: 'a.txt' }, via: 'toolgate' },
    ],
    expect: { data: { content: 'hi' } },
  },
  {
    name: 'edit',
    tool: 'edit_file',
    files: { b: 'x\n' },
    input: { path: 'b', old_string: 'x', new_string: 'y' },
  },
];

let t: InjectApp;
beforeAll(async () => {
  t = await injectApp();
});
afterAll(() => t.close());

async function finished(id: string) {
  for (let i = 0; i < 300; i++) {
    const res = await t.admin(t.http.get(`/v1/evals/${id}`)).expect(200);
    if (res.body.status !== 'running') return res.body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`eval run ${id} did not finish`);
}

describe('/v1/evals', () => {
  it('runs a shipped dataset and inline cases in the background and reports them', async () => {
    const started = await t
      .admin(t.http.post('/v1/evals'))
      .send({ datasets: ['apply-patch'], cases: CASES })
      .expect(202);
    expect(started.body).toMatchObject({
      status: 'running',
      datasets: ['apply-patch', 'inline'],
      variants: ['default'],
    });
    const run = await finished(started.body.id);
    expect(run).toMatchObject({
      status: 'completed',
      progress: { done: 9, total: 9, failed: 0 },
      passRate: 1,
    });
    const tools = run.report.variants[0].tools.map((row: { tool: string }) => row.tool);
    expect(tools).toEqual(['apply_patch', 'edit_file', 'read_file']);
    expect(await t.app.services.sessions.countActive()).toBe(0);
    const junit = await t.admin(t.http.get(`/v1/evals/${run.id}/junit`)).expect(200);
    expect(junit.headers['content-type']).toMatch(/^application\/xml/);
    expect(junit.text).toContain('<testsuite name="apply_patch" tests="7" failures="0">');
    const list = await t.admin(t.http.get('/v1/evals')).expect(200);
    expect(list.body.runs[0]).toMatchObject({ id: run.id, passRate: 1 });
    expect(list.body.runs[0].report).toBeUndefined();
    expect(list.body.datasets).toContain('edit-cascade');
  });

  it('runs variants side by side and compares with an earlier run', async () => {
    const first = await t.admin(t.http.post('/v1/evals')).send({ cases: CASES }).expect(202);
    await finished(first.body.id);
    const ab = await t
      .admin(t.http.post('/v1/evals'))
      .send({
        cases: CASES,
        variants: [{ name: 'default' }, { name: 'read-only', session: { profile: 'read-only' } }],
        compareTo: first.body.id,
        concurrency: 2,
      })
      .expect(202);
    const run = await finished(ab.body.id);
    expect(run.report.variants.map((v: { name: string; passed: number }) => [v.name, v.passed])).toEqual([
      ['default', 2],
      ['read-only', 0],
    ]);
    expect(run.report.differences.map((d: { id: string }) => d.id).sort()).toEqual([
      'inline/edit',
      'inline/write then read',
    ]);
    expect(run.report.failures).toBeUndefined();
    expect(run.report.variants[1].failures[0].mismatches[0]).toMatchObject({ expected: 'success' });
    expect(run.report.comparison).toMatchObject({ regressions: [], fixes: [], added: 2, removed: 0 });
  });

  it('is for the admin only, and answers bad requests with clear errors', async () => {
    const session = await t.createSession();
    const asSession = await t.http
      .post('/v1/evals')
      .set('authorization', `Bearer ${session.token}`)
      .send({ cases: CASES });
    expect(asSession.status).toBe(403);
    const unknown = await t
      .admin(t.http.post('/v1/evals'))
      .send({ datasets: ['nope'] })
      .expect(404);
    expect(unknown.body.error.suggestion).toContain('edit-cascade');
    const bad = await t
      .admin(t.http.post('/v1/evals'))
      .send({ cases: [{ name: 'x', tool: 'read_file', expect: { satus: 1 } }] })
      .expect(400);
    expect(bad.body.error.message).toMatch(/inline, case 1 \(x\): \/expect\/satus: unknown field/);
    await t.admin(t.http.post('/v1/evals')).send({}).expect(400);
    await t.admin(t.http.get('/v1/evals/eval_nope')).expect(404);
    await t.admin(t.http.post('/v1/evals')).send({ cases: CASES, compareTo: 'eval_nope' }).expect(404);
  });

  it('forgets a finished run', async () => {
    const started = await t
      .admin(t.http.post('/v1/evals'))
      .send({ cases: CASES.slice(1) })
      .expect(202);
    await finished(started.body.id);
    await t.admin(t.http.delete(`/v1/evals/${started.body.id}`)).expect(200);
    await t.admin(t.http.get(`/v1/evals/${started.body.id}`)).expect(404);
  });

  it('stops a running run when the app closes, after the case in flight, and keeps it for the next start', async () => {
    const first = await injectApp();
    const slow = [1, 2, 3].map((n) => ({
      name: `slow ${n}`,
      tool: 'run_command',
      input: { command: 'sleep 0.5' },
    }));
    const started = await first
      .admin(first.http.post('/v1/evals'))
      .send({ cases: slow, concurrency: 1 })
      .expect(202);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await first.close({ keepData: true });
    const next = await injectApp({}, { dataDir: first.dataDir });
    try {
      const kept = await next.admin(next.http.get(`/v1/evals/${started.body.id}`)).expect(200);
      expect(kept.body).toMatchObject({ status: 'cancelled', progress: { done: 1, passed: 1 } });
      expect(kept.body.report.variants[0].total).toBe(1);
    } finally {
      await next.close();
    }
  });
});
