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
