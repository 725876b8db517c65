// The API additions the operator console reads: stats by session and by error code with each bucket's
// last call, the calls-per-bucket timeline, the full input of a parked call, the runtime state in the
// session list, a session's todo list without a tool call, and the input summary on tool_call_start events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../helpers/app.js';

describe('API for the operator console', () => {
  let t: InjectApp;
  let rw: { id: string; token: string };
  let ro: { id: string; token: string };
  let started: number;
  beforeAll(async () => {
    t = await injectApp({}, {});
    started = Date.now();
    rw = await t.createSession({ profile: 'read-write', approval: ['edit_file'] });
    ro = await t.createSession({ profile: 'read-only' });
    await t.call(rw, 'write_file', { path: 'a.txt', content: 'one\n' }).expect(200);
    await t.call(rw, 'read_file', { path: 'a.txt' }).expect(200);
    await t.call(rw, 'read_file', { path: 'missing.txt' }).expect(404);
    await t.call(ro, 'write_file', { path: 'x.txt', content: 'x' }).expect(403);
    await t.call(rw, 'edit_file', { path: 'a.txt', old_string: 'one', new_string: 'two' }).expect(202);
  });
  afterAll(() => t.close());

  it('stats carry per-session buckets, errors by code and the time of the last call', async () => {
    const res = await t.admin(t.http.get('/v1/stats')).expect(200);
    expect(res.body.bySession[rw.id]).toMatchObject({ total: 4, success: 2, error: 1, pending: 1 });
    expect(res.body.bySession[ro.id]).toMatchObject({ total: 1, refused: 1 });
    // Parked calls wait, they did not fail: APPROVAL_PENDING is not an error code here.
    expect(res.body.byErrorCode).toEqual({ FILE_NOT_FOUND: 1, PERMISSION_DENIED: 1 });
    const last = Date.parse(res.body.bySession[rw.id].lastCallAt);
    expect(last).toBeGreaterThanOrEqual(started);
    expect(last).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(res.body.totals.lastCallAt)).toBe(last);
    const empty = await t.admin(t.http.get(`/v1/stats?since=${Date.now() + 60_000}`)).expect(200);
    expect(empty.body.totals.lastCallAt).toBeNull();
    // A session token sees its own session only.
    const own = await t.http.get('/v1/stats').set('authorization', `Bearer ${ro.token}`).expect(200);
    expect(Object.keys(own.body.bySession)).toEqual([ro.id]);
  });

  it('the timeline counts calls per bucket by outcome, every bucket listed', async () => {
    const since = new Date(started - 120_000).toISOString();
    const res = await t.admin(t.http.get(`/v1/stats/timeline?since=${since}&bucketSeconds=60`)).expect(200);
    expect(res.body.bucketSeconds).toBe(60);
    const buckets = res.body.buckets as Record<string, number | string>[];
    expect(buckets.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < buckets.length; i++) {
      expect(Date.parse(String(buckets[i].start)) - Date.parse(String(buckets[i - 1].start))).toBe(60_000);
    }
    expect(Date.parse(String(buckets[0].start)) % 60_000).toBe(0);
    const sum = (key: string) => buckets.reduce((n, b) => n + Number(b[key]), 0);
    expect([sum('success'), sum('error'), sum('refused'), sum('pending'), sum('rateLimited')]).toEqual([
      2, 1, 1, 1, 0,
    ]);
    const bySession = await t
      .admin(t.http.get(`/v1/stats/timeline?since=${since}&sessionId=${ro.id}`))
      .expect(200);
    expect(bySession.body.buckets.reduce((n: number, b: { refused: number }) => n + b.refused, 0)).toBe(1);
  });

  it('the timeline counts rate-limit refusals', async () => {
    const limited = await t.createSession({
      profile: 'read-only',
      rateLimits: { '*': { limit: 1, windowSeconds: 60 } },
    });
    await t.call(limited, 'list_directory', {}).expect(200);
    await t.call(limited, 'list_directory', {}).expect(429);
    const res = await t
      .admin(t.http.get(`/v1/stats/timeline?sessionId=${limited.id}&bucketSeconds=3600`))
      .expect(200);
    const total = (key: 'refused' | 'rateLimited') =>
      res.body.buckets.reduce((n: number, b: Record<string, number>) => n + b[key], 0);
    expect([total('refused'), total('rateLimited')]).toEqual([1, 1]);
  });

  it('the timeline refuses a bad range with a clear error', async () => {
    const tooMany = await t.admin(t.http.get('/v1/stats/timeline?since=0&bucketSeconds=60')).expect(400);
    expect(tooMany.body.error.code).toBe('VALIDATION_FAILED');
    expect(tooMany.body.error.message).toMatch(/at most 1440/);
    const backwards = await t
      .admin(t.http.get(`/v1/stats/timeline?since=${Date.now()}&until=${Date.now() - 3_600_000}`))
      .expect(400);
    expect(backwards.body.error.message).toMatch(/since must be before until/);
    const garbage = await t.admin(t.http.get('/v1/stats/timeline?until=yesterday-ish')).expect(400);
    expect(garbage.body.error.message).toMatch(/until must be an ISO-8601 time/);
    await t.admin(t.http.get('/v1/stats/timeline?bucketSeconds=0')).expect(400);
  });

  it('a parked call shows the operator its full input, not only the redacted summary', async () => {
    const res = await t.admin(t.http.get(`/v1/approvals?sessionId=${rw.id}`)).expect(200);
    expect(res.body.approvals).toHaveLength(1);
    const [approval] = res.body.approvals;
    expect(approval.input).toMatchObject({ path: 'a.txt', old_string: 'one', new_string: 'two' });
    expect(approval.inputSummary).not.toContain('two');
  });

  it('the session list shows each runtime state without starting a runtime', async () => {
    const idle = await t.createSession({ profile: 'read-only' });
    const res = await t.admin(t.http.get('/v1/sessions')).expect(200);
    const state = (id: string) =>
      res.body.sessions.find((s: { id: string }) => s.id === id)?.runtimeState as string;
    expect(state(rw.id)).toBe('running');
    expect(state(idle.id)).toBe('stopped');
    expect(t.app.services.runtimes.get(idle.id)?.state ?? 'stopped').toBe('stopped');
  });

  it("a session's todo list is readable without a tool call, by the admin or the session itself", async () => {
    const todos = [{ content: 'review the diff', status: 'in_progress' }];
    await t.call(ro, 'todo_write', { todos }).expect(200);
    const auditRows = async () =>
      (await t.admin(t.http.get(`/v1/audit?sessionId=${ro.id}&limit=1000`))).body.entries.length as number;
    const before = await auditRows();
    const asAdmin = await t.admin(t.http.get(`/v1/sessions/${ro.id}/todos`)).expect(200);
    expect(asAdmin.body.todos).toMatchObject(todos);
    const asSession = await t.http
      .get(`/v1/sessions/${ro.id}/todos`)
      .set('authorization', `Bearer ${ro.token}`)
      .expect(200);
    expect(asSession.body).toEqual(asAdmin.body);
    expect(await auditRows()).toBe(before);
    const other = await t.http
      .get(`/v1/sessions/${ro.id}/todos`)
      .set('authorization', `Bearer ${rw.token}`)
      .expect(404);
    expect(other.body.error.code).toBe('SESSION_NOT_FOUND');
    await t.http.get(`/v1/sessions/${ro.id}/todos`).expect(401);
    expect((await t.admin(t.http.get(`/v1/sessions/${rw.id}/todos`)).expect(200)).body.todos).toEqual([]);
  });

  it('tool_call_start events carry the caller and the redacted input summary', async () => {
    const controller = new AbortController();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    const res = await fetch(`http://127.0.0.1:${port}/v1/sessions/${rw.id}/events`, {
      headers: { authorization: `Bearer ${rw.token}` },
      signal: controller.signal,
    });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    await reader.read();
    await t.call(rw, 'write_file', { path: 'b.txt', content: 'SECRET BODY' }).expect(200);
    let text = '';
    while (!text.includes('event: tool_call_end')) text += (await reader.read()).value ?? '';
    controller.abort();
    const start = /event: tool_call_start\ndata: (.*)\n/.exec(text)![1];
    expect(JSON.parse(start)).toMatchObject({
      tool: 'write_file',
      caller: 'session',
      inputSummary: '{"path":"b.txt","content":"[11 bytes]"}',
    });
    expect(text).not.toContain('SECRET BODY');
  });
});
