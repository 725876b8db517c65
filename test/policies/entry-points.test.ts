import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../helpers/app.js';

// Policy lives in the pipeline, so every entry point enforces it identically.
describe('policy through the batch endpoint and the pipeline itself', () => {
  let t: InjectApp;
  beforeAll(async () => {
    t = await injectApp();
  });
  afterAll(() => t.close());

  const batch = (s: { id: string; token: string }, calls: unknown[]) =>
    t.http.post(`/v1/sessions/${s.id}/calls`).set('authorization', `Bearer ${s.token}`).send({ calls });

  it('refuses a tool outside the profile, per call, and audits it', async () => {
    const s = await t.createSession({ profile: 'read-only' });
    const res = await batch(s, [
      { name: 'list_directory', arguments: {} },
      { name: 'write_file', arguments: { path: 'a', content: 'b' } },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { success: boolean }) => r.success)).toEqual([true, false]);
    expect(res.body.results[1].error.code).toBe('PERMISSION_DENIED');
    const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${s.id}`));
    expect(
      audit.body.entries.map((e: { entryPoint: string; status: string }) => [e.entryPoint, e.status]),
    ).toEqual(
      expect.arrayContaining([
        ['batch', 'refused'],
        ['batch', 'success'],
      ]),
    );
  });

  it('applies the rate limit across calls of one batch and across entry points', async () => {
    const s = await t.createSession({
      profile: 'read-only',
      rateLimits: { '*': { limit: 3, windowSeconds: 60 } },
    });
    await t.call(s, 'list_directory', {}).expect(200);
    // Three different calls: identical ones would be duplicates, answered once and costing no budget.
    const res = await batch(s, [
      { name: 'list_directory', arguments: { depth: 1 } },
      { name: 'list_directory', arguments: { depth: 2 } },
      { name: 'list_directory', arguments: { depth: 3 } },
    ]);
    const codes = res.body.results.map(
      (r: { success: boolean; error?: { code: string } }) => r.error?.code ?? 'ok',
    );
    expect(codes.filter((c: string) => c === 'ok')).toHaveLength(2);
    expect(codes.filter((c: string) => c === 'RATE_LIMITED')).toHaveLength(1);
    await t.call(s, 'list_directory', {}).expect(429);
  });

  it('parks calls that need approval inside a batch too', async () => {
    const s = await t.createSession({ profile: 'read-write', approval: ['edit'] });
    const res = await batch(s, [{ name: 'write_file', arguments: { path: 'a.txt', content: 'x' } }]);
    expect(res.body.results[0].error.code).toBe('APPROVAL_PENDING');
    const pending = await t.admin(t.http.get(`/v1/approvals?sessionId=${s.id}`));
    expect(pending.body.approvals).toHaveLength(1);
    expect(pending.body.approvals[0].tool).toBe('write_file');
  });

  it('the pipeline refuses the same way when called directly', async () => {
    const created = await t.createSession({ profile: 'read-only' });
    const session = (await t.app.services.sessions.get(created.id))!;
    const outcome = await t.app.services.pipeline.execute({
      toolName: 'write_file',
      input: { path: 'a', content: 'b' },
      session,
      caller: 'session',
      entryPoint: 'mcp',
      bytesIn: 0,
    });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error.code).toBe('PERMISSION_DENIED');
  });
});
