// Transfers (raw PUT/GET files, archive POST/GET) are held to the policies of the tool they stand for:
// write_file's or read_file's rate limits, counted per transfer and shared with the tool's own calls,
// and the session's approval policy (a transfer it covers is refused: it cannot be parked), audited.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { tarOf } from './archive-helpers.js';

type Session = { id: string; token: string };

describe('transfer policies', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  const put = (s: Session, name: string, body = 'bytes\n') =>
    t.http.put(`/v1/sessions/${s.id}/files/${name}`).set('authorization', `Bearer ${s.token}`).send(body);
  const get = (s: Session, name: string) =>
    t.http.get(`/v1/sessions/${s.id}/files/${name}`).set('authorization', `Bearer ${s.token}`);
  const extract = async (s: Session) =>
    t.http
      .post(`/v1/sessions/${s.id}/archive?path=in`)
      .set('authorization', `Bearer ${s.token}`)
      .send(await tarOf([{ name: 'x.txt', content: 'x' }]));
  const download = (s: Session) =>
    t.http.get(`/v1/sessions/${s.id}/archive`).set('authorization', `Bearer ${s.token}`);
  const exists = (s: Session, name: string) =>
    existsSync(path.join(t.app.services.workspaces.dirFor(s.id), name));
  const audited = async (s: Session) => {
    const rows = await t.admin(t.http.get(`/v1/audit?sessionId=${s.id}`));
    return rows.body.entries.map(
      (e: { tool: string; status: string; errorCode: string | null }) =>
        `${e.tool}:${e.status}:${e.errorCode ?? ''}`,
    );
  };

  it("counts each upload against write_file's rate limit and answers 429 with the envelope past it", async () => {
    const s = await t.createSession({ rateLimits: { 'tool:write_file': { limit: 2, windowSeconds: 60 } } });
    const first = await put(s, 'one.txt');
    expect(first.status).toBe(201);
    expect(first.headers['ratelimit']).toMatch(/"tool:write_file";r=1;t=\d+/);
    expect(first.headers['ratelimit-policy']).toContain('"tool:write_file";q=2;w=60');
    expect((await extract(s)).status).toBe(200);

    const limited = await put(s, 'three.txt');
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(exists(s, 'three.txt')).toBe(false);
    // The budget is write_file's own: the tool is out of it too, reads are not.
    expect((await t.call(s, 'write_file', { path: 'four.txt', content: 'x' })).status).toBe(429);
    expect((await get(s, 'one.txt')).status).toBe(200);
    expect((await download(s)).status).toBe(200);
    expect(await audited(s)).toEqual(
      expect.arrayContaining([
        'file_upload:success:',
        'archive_extract:success:',
        'file_upload:refused:RATE_LIMITED',
      ]),
    );
  });

  it("counts downloads against read_file's limits", async () => {
    const s = await t.createSession({
      files: { 'a.txt': 'a\n' },
      rateLimits: { filesystem: { limit: 1, windowSeconds: 60 } },
    });
    expect((await get(s, 'a.txt')).status).toBe(200);
    const limited = await download(s);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
  });

  it('refuses writes that the approval policy covers, with nothing written, and lets reads through', async () => {
    const s = await t.createSession({ approval: ['write_file'], files: { 'a.txt': 'a\n' } });
    const refused = await put(s, 'new.txt');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      success: false,
      error: { code: 'PERMISSION_DENIED', details: { tool: 'write_file', approvalRequired: true } },
    });
    expect(refused.body.error.message).toMatch(/approval/);
    expect(exists(s, 'new.txt')).toBe(false);
    expect((await extract(s)).status).toBe(403);
    expect(exists(s, 'in')).toBe(false);
    expect((await get(s, 'a.txt')).status).toBe(200);
    // The tool itself is parked, as before.
    expect((await t.call(s, 'write_file', { path: 'new.txt', content: 'x' })).status).toBe(202);
    expect(await audited(s)).toEqual(
      expect.arrayContaining([
        'file_upload:refused:PERMISSION_DENIED',
        'archive_extract:refused:PERMISSION_DENIED',
      ]),
    );
  });

  it("refuses reads when the approval policy covers read_file's category", async () => {
    const s = await t.createSession({ approval: ['filesystem'], files: { 'a.txt': 'a\n' } });
    expect((await get(s, 'a.txt')).status).toBe(403);
    expect((await download(s)).status).toBe(403);
  });
});
