import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimitStore } from '../../src/policies/rate-limit/store.js';
import { injectApp, tempDir, type InjectApp } from '../helpers/app.js';

describe('sliding-window rate-limit store', () => {
  it('allows `limit` calls per window, then refuses with a retry time, and recovers after the window', async () => {
    const store = new MemoryRateLimitStore();
    const t0 = 1_000_000_000_000; // a window boundary for 1000 ms windows
    for (let i = 0; i < 3; i++) expect((await store.hit('k', 3, 1000, t0 + i)).allowed).toBe(true);
    const refused = await store.hit('k', 3, 1000, t0 + 10);
    expect(refused).toMatchObject({ allowed: false, remaining: 0 });
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    // Half-way into the next window the previous window still weighs 50%: 3 * 0.5 = 1.5 used, 1 more fits.
    expect((await store.hit('k', 3, 1000, t0 + 1500)).allowed).toBe(true);
    expect((await store.hit('k', 3, 1000, t0 + 1501)).allowed).toBe(false);
    // Two windows later everything is forgotten.
    expect((await store.hit('k', 3, 1000, t0 + 3000)).remaining).toBe(2);
    await store.close();
  });

  it('keeps keys apart', async () => {
    const store = new MemoryRateLimitStore();
    expect((await store.hit('a', 1, 1000, 0)).allowed).toBe(true);
    expect((await store.hit('b', 1, 1000, 0)).allowed).toBe(true);
    expect((await store.hit('a', 1, 1000, 1)).allowed).toBe(false);
    await store.close();
  });
});

describe('rate limits through the API', () => {
  let t: InjectApp;
  beforeAll(async () => {
    const dir = tempDir();
    const configFile = path.join(dir, 'config.json');
    // Operator default for the filesystem category; sessions may override it.
    writeFileSync(
      configFile,
      JSON.stringify({ rateLimits: { filesystem: { limit: 3, windowSeconds: 60 } } }),
    );
    t = await injectApp({ TOOLGATE_CONFIG: configFile });
  });
  afterAll(() => t.close());

  it('sends RateLimit-Policy and RateLimit headers, then 429 with Retry-After; refusals are audited', async () => {
    const s = await t.createSession({ profile: 'read-only', files: { 'a.txt': 'a' } });
    const first = await t.call(s, 'read_file', { path: 'a.txt' });
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-policy']).toBe('"filesystem";q=3;w=60');
    expect(first.headers['ratelimit']).toMatch(/^"filesystem";r=2;t=\d+$/);
    await t.call(s, 'read_file', { path: 'a.txt' }).expect(200);
    await t.call(s, 'list_directory', {}).expect(200);
    const limited = await t.call(s, 'read_file', { path: 'a.txt' });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ code: 'RATE_LIMITED', type: 'rate_limited' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.headers['ratelimit']).toMatch(/^"filesystem";r=0;t=\d+$/);
    const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${s.id}&status=refused`));
    expect(audit.body.entries).toHaveLength(1);
    expect(audit.body.entries[0].errorCode).toBe('RATE_LIMITED');
    const stats = await t.admin(t.http.get(`/v1/stats?sessionId=${s.id}`));
    expect(stats.body.totals).toMatchObject({ total: 4, success: 3, refused: 1 });
  });

  it('a session override replaces the default, and "*" and tool rules apply too', async () => {
    const s = await t.createSession({
      profile: 'read-write',
      rateLimits: {
        filesystem: { limit: 100, windowSeconds: 60 },
        'tool:write_file': { limit: 1, windowSeconds: 60 },
      },
    });
    await t.call(s, 'write_file', { path: 'x', content: '1' }).expect(200);
    const second = await t.call(s, 'write_file', { path: 'x', content: '2' });
    expect(second.status).toBe(429);
    expect(second.body.error.details.rule).toBe('tool:write_file');
    for (let i = 0; i < 5; i++) await t.call(s, 'read_file', { path: 'x' }).expect(200);
  });

  it('recovers after the window', async () => {
    const s = await t.createSession({
      rateLimits: { '*': { limit: 1, windowSeconds: 0.5 } },
      files: { 'a.txt': 'a' },
    });
    await t.call(s, 'read_file', { path: 'a.txt' }).expect(200);
    const limited = await t.call(s, 'read_file', { path: 'a.txt' });
    expect(limited.status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await t.call(s, 'read_file', { path: 'a.txt' }).expect(200);
  });

  it('a session token cannot change its own limits', async () => {
    const s = await t.createSession({ profile: 'read-only' });
    const res = await t.http
      .post('/v1/sessions')
      .set('authorization', `Bearer ${s.token}`)
      .send({ rateLimits: { '*': { limit: 1000000, windowSeconds: 1 } } });
    expect(res.status).toBe(403);
  });
});

describe('failed authentication per client IP', () => {
  it('after too many failures the address gets 429 before any token is checked', async () => {
    const dir = tempDir();
    const configFile = path.join(dir, 'config.json');
    writeFileSync(
      configFile,
      JSON.stringify({ policy: { authFailuresPerWindow: 5, authWindowSeconds: 60 } }),
    );
    const t = await injectApp({ TOOLGATE_CONFIG: configFile });
    try {
      for (let i = 0; i < 5; i++) {
        expect((await t.http.get('/v1/tools').set('authorization', 'Bearer guess')).status).toBe(401);
      }
      const blocked = await t.http.get('/v1/tools').set('authorization', 'Bearer guess');
      expect(blocked.status).toBe(429);
      expect(blocked.body.error.code).toBe('RATE_LIMITED');
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      // Public routes stay reachable.
      expect((await t.http.get('/healthz')).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
