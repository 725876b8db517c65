import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../helpers/app.js';

describe('audit log and stats', () => {
  let t: InjectApp;
  let rw: { id: string; token: string };
  let ro: { id: string; token: string };
  beforeAll(async () => {
    t = await injectApp();
    rw = await t.createSession({ profile: 'read-write' });
    ro = await t.createSession({ profile: 'read-only' });
    await t.call(rw, 'write_file', { path: 'secret.txt', content: 'TOP SECRET CONTENT' }).expect(200);
    await t.call(rw, 'read_file', { path: 'secret.txt' }).expect(200);
    await t.call(rw, 'read_file', { path: 'missing.txt' }).expect(404);
    await t.call(rw, 'read_file', { path: 42 }).expect(400);
    await t.call(ro, 'write_file', { path: 'x.txt', content: 'x' }).expect(403);
  });
  afterAll(() => t.close());

  it('records one row per call — success, failed, invalid and refused — newest first', async () => {
    const res = await t.admin(t.http.get(`/v1/audit?sessionId=${rw.id}`));
    expect(res.status).toBe(200);
    const rows = res.body.entries;
    expect(
      rows.map((r: { tool: string; status: string; errorCode: string | null }) => [
        r.tool,
        r.status,
        r.errorCode,
      ]),
    ).toEqual([
      ['read_file', 'error', 'VALIDATION_FAILED'],
      ['read_file', 'error', 'FILE_NOT_FOUND'],
      ['read_file', 'success', null],
      ['write_file', 'success', null],
    ]);
    const write = rows[3];
    expect(write).toMatchObject({
      sessionId: rw.id,
      category: 'edit',
      httpStatus: 200,
      caller: 'session',
      entryPoint: 'rest',
    });
    expect(write.bytesIn).toBeGreaterThan(0);
    expect(write.bytesOut).toBeGreaterThan(0);
    expect(write.durationMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(write.time)).not.toBeNaN();
    expect(rows[2].bytesOut).toBeGreaterThan(write.bytesOut);
  });

  it('never stores file contents or tokens in the input summary', async () => {
    const res = await t.admin(t.http.get(`/v1/audit?sessionId=${rw.id}&tool=write_file`));
    const summary = res.body.entries[0].inputSummary;
    expect(summary).toContain('secret.txt');
    expect(summary).not.toContain('TOP SECRET');
    expect(summary).toContain('[18 bytes]');
    const all = JSON.stringify((await t.admin(t.http.get('/v1/audit?limit=1000'))).body);
    expect(all).not.toContain(rw.token);
  });

  it('records refused calls as refused', async () => {
    const res = await t.admin(t.http.get(`/v1/audit?sessionId=${ro.id}&status=refused`));
    expect(res.body.entries).toHaveLength(1);
    expect(res.body.entries[0]).toMatchObject({
      tool: 'write_file',
      errorCode: 'PERMISSION_DENIED',
      httpStatus: 403,
    });
  });

  it('filters by tool, status and time and paginates with a cursor', async () => {
    const failed = await t.admin(t.http.get(`/v1/audit?sessionId=${rw.id}&status=error`));
    expect(failed.body.entries).toHaveLength(2);
    const future = await t.admin(
      t.http.get(`/v1/audit?since=${new Date(Date.now() + 60_000).toISOString()}`),
    );
    expect(future.body.entries).toHaveLength(0);
    const past = await t.admin(t.http.get(`/v1/audit?until=${Date.now() - 60_000}`));
    expect(past.body.entries).toHaveLength(0);
    const page1 = await t.admin(t.http.get(`/v1/audit?sessionId=${rw.id}&limit=3`));
    expect(page1.body.entries).toHaveLength(3);
    const page2 = await t.admin(
      t.http.get(`/v1/audit?sessionId=${rw.id}&limit=3&cursor=${page1.body.nextCursor}`),
    );
    expect(page2.body.entries).toHaveLength(1);
    expect(page2.body.nextCursor).toBeNull();
  });

  it('a session token sees only its own rows, and 404 for another session', async () => {
    const own = await t.http.get('/v1/audit').set('authorization', `Bearer ${ro.token}`);
    expect(own.body.entries.every((e: { sessionId: string }) => e.sessionId === ro.id)).toBe(true);
    const other = await t.http.get(`/v1/audit?sessionId=${rw.id}`).set('authorization', `Bearer ${ro.token}`);
    expect(other.status).toBe(404);
    const stats = await t.http.get(`/v1/stats`).set('authorization', `Bearer ${ro.token}`);
    expect(stats.body.totals.total).toBe(1);
  });

  it('stats count totals, successes, errors and refusals with mean/p50/p95 by tool and category', async () => {
    const res = await t.admin(t.http.get('/v1/stats'));
    expect(res.status).toBe(200);
    expect(res.body.totals).toMatchObject({ total: 5, success: 2, error: 2, refused: 1 });
    expect(res.body.byTool.read_file).toMatchObject({ total: 3, success: 1, error: 2, refused: 0 });
    expect(res.body.byTool.write_file).toMatchObject({ total: 2, success: 1, refused: 1 });
    expect(res.body.byCategory.edit.total).toBe(2);
    const bucket = res.body.byTool.read_file;
    expect(bucket.p95Ms).toBeGreaterThanOrEqual(bucket.p50Ms);
    expect(bucket.meanMs).toBeGreaterThan(0);
    const one = await t.admin(t.http.get(`/v1/stats?tool=write_file&sessionId=${rw.id}`));
    expect(one.body.totals).toMatchObject({ total: 1, success: 1 });
  });

  it('deletes audit rows past the retention window', async () => {
    const swept = await t.app.services.sweep(Date.now() + 400 * 86_400_000);
    expect(swept.auditRows).toBeGreaterThanOrEqual(5);
    const res = await t.admin(t.http.get('/v1/audit'));
    expect(res.body.entries).toHaveLength(0);
  });
});
