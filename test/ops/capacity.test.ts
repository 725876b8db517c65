// A replica's capacity: the session limit refuses with 503 CAPACITY_EXHAUSTED and Retry-After, an idle
// runtime is stopped to let another start (its session answers its next call), the host memory floor
// refuses a create, /readyz turns full and back, and /metrics and GET /v1/capacity show each limit.
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../helpers/app.js';
import { injectAppWithConfig } from './with-config.js';

let t: InjectApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const metric = (text: string, name: string, limit: string): number | undefined => {
  const match = new RegExp(`^${name}\\{limit="${limit}"\\} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : undefined;
};

describe('capacity', () => {
  it('refuses the session past the limit with 503, Retry-After and the limit named; a delete makes room', async () => {
    t = await injectApp({ TOOLGATE_MAX_SESSIONS: '2' });
    const first = await t.createSession({ profile: 'read-only' });
    await t.createSession({ profile: 'read-only' });
    const refused = await t.admin(t.http.post('/v1/sessions')).send({ profile: 'read-only' });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('10');
    expect(refused.body.error.code).toBe('CAPACITY_EXHAUSTED');
    expect(refused.body.error.message).toContain('limit of 2 live sessions');
    expect(refused.body.error.details).toEqual({ limit: 'sessions', used: 2, max: 2 });

    const capacity = await t.admin(t.http.get('/v1/capacity'));
    expect(capacity.status).toBe(200);
    expect(capacity.body.full).toBe(true);
    expect(capacity.body.fullLimits).toEqual(['sessions']);
    const metrics = (await t.admin(t.http.get('/metrics'))).text;
    expect(metric(metrics, 'toolgate_capacity_used', 'sessions')).toBe(2);
    expect(metric(metrics, 'toolgate_capacity_limit', 'sessions')).toBe(2);
    expect(metric(metrics, 'toolgate_capacity_full', 'sessions')).toBe(1);
    expect(metric(metrics, 'toolgate_capacity_refusals_total', 'sessions')).toBe(1);

    expect((await t.admin(t.http.delete(`/v1/sessions/${first.id}`))).status).toBe(204);
    expect((await t.admin(t.http.post('/v1/sessions')).send({ profile: 'read-only' })).status).toBe(201);
  });

  it('admits exactly the limit from a burst of concurrent creates, the rest refused, none a 500', async () => {
    t = await injectApp({ TOOLGATE_MAX_SESSIONS: '3' });
    const burst = await Promise.all(
      Array.from({ length: 10 }, () => t!.admin(t!.http.post('/v1/sessions')).send({ profile: 'read-only' })),
    );
    const statuses = burst.map((res) => res.status).sort();
    expect(statuses).toEqual([201, 201, 201, 503, 503, 503, 503, 503, 503, 503]);
    expect(await t.app.services.sessions.countActive()).toBe(3);
  });

  it('/readyz turns full at the limit and back when a session goes', async () => {
    t = await injectApp({ TOOLGATE_MAX_SESSIONS: '1' });
    const before = await t.http.get('/readyz');
    expect(before.status).toBe(200);
    expect(before.body.checks.capacity).toMatchObject({ ok: true, full: false });
    const session = await t.createSession({ profile: 'read-only' });
    const full = await t.http.get('/readyz');
    expect(full.status).toBe(503);
    expect(full.body.checks.capacity).toMatchObject({ ok: false, full: true });
    expect(full.body.checks.capacity.detail).toBe('full: sessions 1/1');
    // Only the capacity check fails: the replica is healthy, it just takes no new sessions.
    expect(
      Object.entries(full.body.checks).filter(([, check]) => !(check as { ok: boolean }).ok),
    ).toHaveLength(1);
    // Its session still works.
    expect((await t.call(session, 'list_directory', {})).status).toBe(200);
    expect((await t.admin(t.http.delete(`/v1/sessions/${session.id}`))).status).toBe(204);
    expect((await t.http.get('/readyz')).status).toBe(200);
  });

  it('stops the least recently used idle runtime to start another; the stopped session answers its next call', async () => {
    t = await injectApp({ TOOLGATE_MAX_RUNTIMES: '1' });
    const a = await t.createSession({ profile: 'read-write', files: { 'a.txt': 'from a\n' } });
    const b = await t.createSession({ profile: 'read-write', files: { 'b.txt': 'from b\n' } });
    const runtimes = t.app.services.runtimes;
    // b's seeding started b's runtime, which stopped a's (idle) one.
    expect(runtimes.get(b.id)?.state).toBe('running');
    expect(runtimes.get(a.id)?.state).toBe('stopped');
    expect(runtimes.inUse()).toHaveLength(1);
    const read = await t.call(a, 'read_file', { path: 'a.txt' });
    expect(read.status).toBe(200);
    expect(read.body.data.content).toContain('from a');
    expect(runtimes.get(a.id)?.state).toBe('running');
    expect(runtimes.get(b.id)?.state).toBe('stopped');
    expect(runtimes.inUse()).toHaveLength(1);
  });

  it('refuses a runtime start when every running runtime is busy', async () => {
    t = await injectApp({ TOOLGATE_MAX_RUNTIMES: '1' });
    const busy = await t.createSession({ profile: 'execute' });
    const other = await t.createSession({ profile: 'execute' });
    const sleeping = await t.call(busy, 'run_command', { command: 'sleep 30', background: true });
    expect(sleeping.status).toBe(200);
    const refused = await t.call(other, 'list_directory', {});
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('CAPACITY_EXHAUSTED');
    expect(refused.body.error.details).toMatchObject({ limit: 'runtimes', max: 1 });
    expect(refused.headers['retry-after']).toBe('10');
    const capacity = await t.admin(t.http.get('/v1/capacity'));
    expect(capacity.body.limits.runtimes).toMatchObject({ used: 1, limit: 1, full: true });
  });

  it('refuses a create while the host has less memory available than the floor', async () => {
    // A floor above the machine's whole memory: no host can meet it, and no idle runtime frees enough.
    t = await injectAppWithConfig({ capacity: { minAvailableMemoryBytes: 2 ** 50 } });
    const refused = await t.admin(t.http.post('/v1/sessions')).send({ profile: 'read-only' });
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('CAPACITY_EXHAUSTED');
    expect(refused.body.error.details.limit).toBe('memory');
    expect(refused.body.error.message).toMatch(/available memory is below its floor/);
    const ready = await t.http.get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.capacity.detail).toMatch(/^full: memory /);
  });

  it("refuses a named key's session past its quota with 429, while the admin key and other keys go on", async () => {
    const sha256 = (key: string) => createHash('sha256').update(key).digest('hex');
    const teamKey = 'tgk_team_a_0123456789abcdef';
    const otherKey = 'tgk_team_b_0123456789abcdef';
    t = await injectAppWithConfig({
      apiKeys: {
        'team-a': { sha256: sha256(teamKey), maxSessions: 1 },
        'team-b': { sha256: sha256(otherKey), maxSessions: 5 },
      },
    });
    const create = (key: string) =>
      t!.http.post('/v1/sessions').set('authorization', `Bearer ${key}`).send({ profile: 'read-write' });
    const first = await create(teamKey);
    expect(first.status).toBe(201);
    const refused = await create(teamKey);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('KEY_QUOTA_EXCEEDED');
    expect(refused.body.error.details).toEqual({ apiKey: 'team-a', used: 1, max: 1 });
    expect(refused.headers['retry-after']).toBe('10');
    // A fork of the key's session counts against its quota too.
    const fork = await t.http
      .post(`/v1/sessions/${first.body.id}/fork`)
      .set('authorization', `Bearer ${teamKey}`);
    expect(fork.status).toBe(429);
    expect((await create(otherKey)).status).toBe(201);
    expect((await t.admin(t.http.post('/v1/sessions')).send({ profile: 'read-only' })).status).toBe(201);
    // The key's session goes: its quota has room again.
    expect(
      (await t.http.delete(`/v1/sessions/${first.body.id}`).set('authorization', `Bearer ${teamKey}`)).status,
    ).toBe(204);
    expect((await create(teamKey)).status).toBe(201);
  });

  it('derives its limits from the machine when none is set', async () => {
    t = await injectApp();
    const { body } = await t.admin(t.http.get('/v1/capacity'));
    expect(body.full).toBe(false);
    expect(body.limits.sessions.limit).toBeGreaterThanOrEqual(8);
    expect(body.limits.runtimes.limit).toBeGreaterThanOrEqual(2);
    expect(body.limits.sessions.limit).toBeGreaterThan(body.limits.runtimes.limit);
    expect(body.limits.memory.unit).toBe('bytes');
  });
});
