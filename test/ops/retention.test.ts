import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { InjectApp } from '../helpers/app.js';
import { injectAppWithConfig } from './with-config.js';

const DAY = 86_400_000;

const lastUsedAt = async (t: InjectApp, id: string) =>
  (
    await t.app.services.db.get<{ last_used_at: number | null }>(
      'SELECT last_used_at FROM sessions WHERE id = ?',
      [id],
    )
  )?.last_used_at;

describe('audit retention (audit.retentionDays)', () => {
  let t: InjectApp;
  beforeAll(async () => {
    t = await injectAppWithConfig({ audit: { retentionDays: 2 } });
  });
  afterAll(() => t.close());

  it('keeps audit rows younger than the retention and deletes older ones on sweep', async () => {
    const session = await t.createSession({ profile: 'read-write', ttlSeconds: 30 * 86_400 });
    for (let i = 0; i < 3; i++) {
      expect((await t.call(session, 'write_file', { path: `f${i}.txt`, content: 'x' })).status).toBe(200);
    }
    const count = async () => (await t.admin(t.http.get('/v1/audit'))).body.entries.length;
    expect(await count()).toBe(3);
    expect(await t.app.services.sweep(Date.now() + 1 * DAY)).toEqual({ sessions: 0, auditRows: 0 });
    expect(await count()).toBe(3);
    expect(await t.app.services.sweep(Date.now() + 3 * DAY)).toEqual({ sessions: 0, auditRows: 3 });
    expect(await count()).toBe(0);
  });
});

describe('idle-session expiry (sessions.idleTtlSeconds)', () => {
  let t: InjectApp;
  beforeAll(async () => {
    t = await injectAppWithConfig({ sessions: { idleTtlSeconds: 60 } });
  });
  afterAll(() => t.close());

  it('records the last use of a session when a tool is called', async () => {
    const session = await t.createSession({ profile: 'read-write' });
    expect(await lastUsedAt(t, session.id)).toBeNull();
    const before = Date.now();
    expect((await t.call(session, 'write_file', { path: 'a.txt', content: 'a' })).status).toBe(200);
    // Recorded after the call, without holding up its answer: on PostgreSQL it lands a moment later.
    await vi.waitFor(async () => expect(await lastUsedAt(t, session.id)).toBeGreaterThanOrEqual(before));
  });

  it('writes the last-use time at most once per interval, not on every call', async () => {
    const { sessions } = t.app.services;
    const { session } = await sessions.create({
      profile: 'read-only',
      permissions: ['read'],
      categories: null,
      excludeTools: [],
      rateLimits: {},
      approval: [],
      metadata: {},
      expiresAt: Date.now() + DAY,
    });
    const t0 = Date.now();
    await sessions.touch(session.id, t0);
    await sessions.touch(session.id, t0 + 1_000);
    expect(await lastUsedAt(t, session.id)).toBe(t0);
    // The interval is a quarter of the 60 s idle TTL, so a busy session can never look idle.
    await sessions.touch(session.id, t0 + 15_000);
    expect(await lastUsedAt(t, session.id)).toBe(t0 + 15_000);
  });

  it('expires a session unused for longer than the idle TTL and keeps one used recently', async () => {
    const idle = await t.createSession({ profile: 'read-write' });
    const busy = await t.createSession({ profile: 'read-write' });
    expect((await t.call(idle, 'write_file', { path: 'keep.txt', content: 'k' })).status).toBe(200);
    const now = Date.now();
    await t.app.services.sessions.touch(busy.id, now + 50_000);
    const later = now + 70_000;
    // Idle sessions count as gone before the sweeper runs…
    expect(await t.app.services.sessions.get(idle.id, later)).toBeUndefined();
    expect((await t.app.services.sessions.get(busy.id, later))?.id).toBe(busy.id);
    // …and the sweep removes them with their workspace.
    const swept = await t.app.services.sweep(later);
    expect(swept.sessions).toBeGreaterThanOrEqual(1);
    expect(await t.app.services.sessions.get(idle.id)).toBeUndefined();
    expect((await t.app.services.sessions.get(busy.id))?.id).toBe(busy.id);
    expect((await t.call(idle, 'read_file', { path: 'keep.txt' })).status).toBe(401);
    expect((await t.call(busy, 'write_file', { path: 'b.txt', content: 'b' })).status).toBe(200);
  });
});
