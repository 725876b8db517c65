import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, tempDir, type InjectApp } from '../helpers/app.js';

describe('approvals', () => {
  let t: InjectApp;
  let s: { id: string; token: string };
  beforeAll(async () => {
    const dir = tempDir();
    const configFile = path.join(dir, 'config.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        profiles: { guarded: { permissions: ['read', 'write'], approval: ['write_file'] } },
        policy: { approvalTtlSeconds: 2 },
      }),
    );
    t = await injectApp({ TOOLGATE_CONFIG: configFile });
    s = await t.createSession({ profile: 'guarded' });
  });
  afterAll(() => t.close());

  const workspaceFile = (name: string) => path.join(t.app.services.workspaces.dirFor(s.id), name);

  it('parks the call with 202, runs it when approved, and serves its result', async () => {
    const parked = await t.call(s, 'write_file', { path: 'approved.txt', content: 'yes' });
    expect(parked.status).toBe(202);
    expect(parked.body).toMatchObject({ success: true, pending: true, status: 'pending_approval' });
    const { callId, resultUrl } = parked.body;
    expect(resultUrl).toBe(`/v1/sessions/${s.id}/calls/${callId}`);
    expect(existsSync(workspaceFile('approved.txt'))).toBe(false);

    const pending = await t.admin(t.http.get('/v1/approvals'));
    expect(pending.body.approvals.map((a: { callId: string }) => a.callId)).toContain(callId);
    const stillWaiting = await t.http.get(resultUrl).set('authorization', `Bearer ${s.token}`);
    expect(stillWaiting.status).toBe(202);

    // Long-poll from the agent's side while the operator approves.
    const poll = t.http.get(`${resultUrl}?wait=10`).set('authorization', `Bearer ${s.token}`);
    const approve = await t
      .admin(t.http.post(`/v1/approvals/${callId}/approve`))
      .send({ reason: 'looks fine' });
    expect(approve.status).toBe(200);
    expect(approve.body).toMatchObject({ status: 'completed', reason: 'looks fine' });
    const result = await poll;
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      success: true,
      callId,
      data: { path: 'approved.txt', created: true },
    });
    expect(readFileSync(workspaceFile('approved.txt'), 'utf8')).toBe('yes');

    const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${s.id}&tool=write_file`));
    const statuses = audit.body.entries
      .filter((e: { callId: string }) => e.callId === callId)
      .map((e: { status: string }) => e.status);
    expect(statuses.sort()).toEqual(['pending', 'success']);
    const again = await t.admin(t.http.post(`/v1/approvals/${callId}/approve`)).send({});
    expect(again.status).toBe(409);
  });

  it('a denied call never runs and its result is a 403 APPROVAL_DENIED', async () => {
    const parked = await t.call(s, 'write_file', { path: 'denied.txt', content: 'no' });
    const deny = await t
      .admin(t.http.post(`/v1/approvals/${parked.body.callId}/deny`))
      .send({ reason: 'not now' });
    expect(deny.body.status).toBe('denied');
    const result = await t.http.get(parked.body.resultUrl).set('authorization', `Bearer ${s.token}`);
    expect(result.status).toBe(403);
    expect(result.body.error.code).toBe('APPROVAL_DENIED');
    expect(result.body.error.message).toContain('not now');
    expect(existsSync(workspaceFile('denied.txt'))).toBe(false);
  });

  it('a pending call expires; it can no longer be approved and its result is 410', async () => {
    const parked = await t.call(s, 'write_file', { path: 'late.txt', content: 'late' });
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const approve = await t.admin(t.http.post(`/v1/approvals/${parked.body.callId}/approve`)).send({});
    expect(approve.status).toBe(409);
    const result = await t.http.get(parked.body.resultUrl).set('authorization', `Bearer ${s.token}`);
    expect(result.status).toBe(410);
    expect(result.body.error.code).toBe('APPROVAL_EXPIRED');
    expect(existsSync(workspaceFile('late.txt'))).toBe(false);
  });

  it('every decided call gets its final audit row, and stats count as parked only the calls waiting now', async () => {
    const own = await t.createSession({ profile: 'guarded' });
    const park = async (name: string) => {
      const res = await t.call(own, 'write_file', { path: name, content: name });
      expect(res.status).toBe(202);
      return res.body.callId as string;
    };
    const stats = async () => (await t.admin(t.http.get(`/v1/stats?sessionId=${own.id}`))).body.totals;
    const rowsOf = async (callId: string) =>
      (
        (await t.admin(t.http.get(`/v1/audit?sessionId=${own.id}&limit=100`))).body.entries as {
          callId: string;
          status: string;
          errorCode: string | null;
          decidedBy: string | null;
          reason: string | null;
        }[]
      )
        .filter((row) => row.callId === callId)
        .reverse();
    const [approved, denied, expiring] = [await park('a.txt'), await park('b.txt'), await park('c.txt')];
    expect(await stats()).toMatchObject({ total: 3, pending: 3 });
    // What a console watching the session sees of the decisions.
    const seen: string[] = [];
    const unsubscribe = t.app.services.events.subscribe(own.id, ({ type, data }) => {
      const error = data.error as { code: string } | undefined;
      seen.push(`${type} ${data.callId as string}${error ? ` ${error.code}` : ''}`);
    });

    expect((await t.admin(t.http.post(`/v1/approvals/${approved}/approve`)).send({})).status).toBe(200);
    const deny = await t.admin(t.http.post(`/v1/approvals/${denied}/deny`)).send({ reason: 'not today' });
    expect(deny.status).toBe(200);
    expect((await rowsOf(approved)).map((row) => row.status)).toEqual(['pending', 'success']);
    expect(await rowsOf(denied)).toMatchObject([
      { status: 'pending', errorCode: 'APPROVAL_PENDING', decidedBy: null, reason: null },
      { status: 'refused', errorCode: 'APPROVAL_DENIED', decidedBy: 'admin', reason: 'not today' },
    ]);
    expect(await stats()).toMatchObject({ total: 3, pending: 1, success: 1, refused: 1 });

    // The third is never decided: it expires (the sweep's clock moved past its deadline).
    expect(await t.app.services.approvals.expireDue(Date.now() + 3_000)).toBeGreaterThanOrEqual(1);
    expect(await rowsOf(expiring)).toMatchObject([
      { status: 'pending' },
      { status: 'refused', errorCode: 'APPROVAL_EXPIRED', decidedBy: 'expiry' },
    ]);
    expect(await stats()).toMatchObject({ total: 3, pending: 0, success: 1, refused: 2 });
    unsubscribe();
    expect(seen.filter((line) => !line.includes(approved))).toEqual([
      `error ${denied} APPROVAL_DENIED`,
      `tool_call_end ${denied}`,
      `error ${expiring} APPROVAL_EXPIRED`,
      `tool_call_end ${expiring}`,
    ]);
    expect(seen.filter((line) => line.includes(approved))).toEqual([
      `tool_call_start ${approved}`,
      `tool_call_end ${approved}`,
    ]);
    // Until past the sweep's clock: the expired call's row is stamped with it (3 s ahead of now), and the
    // default end (now) would leave it out whenever that lands in the next bucket.
    const until = Date.now() + 60_000;
    const timeline = await t.admin(t.http.get(`/v1/stats/timeline?sessionId=${own.id}&until=${until}`));
    expect(timeline.status).toBe(200);
    const sum = (key: string) =>
      (timeline.body.buckets as Record<string, number>[]).reduce((acc, b) => acc + b[key], 0);
    expect({ pending: sum('pending'), success: sum('success'), refused: sum('refused') }).toEqual({
      pending: 0,
      success: 1,
      refused: 2,
    });
  });

  it('reads are not parked, other sessions cannot see the call, and only the admin decides', async () => {
    await t.call(s, 'list_directory', {}).expect(200);
    const parked = await t.call(s, 'write_file', { path: 'x.txt', content: 'x' });
    const other = await t.createSession({ profile: 'read-only' });
    const peek = await t.http
      .get(`/v1/sessions/${s.id}/calls/${parked.body.callId}`)
      .set('authorization', `Bearer ${other.token}`);
    expect(peek.status).toBe(404);
    const selfApprove = await t.http
      .post(`/v1/approvals/${parked.body.callId}/approve`)
      .set('authorization', `Bearer ${s.token}`)
      .send({});
    expect(selfApprove.status).toBe(403);
    const unknown = await t.admin(t.http.post('/v1/approvals/call_nope/approve')).send({});
    expect(unknown.status).toBe(404);
  });
});
