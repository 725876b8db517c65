import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, injectApp, tempDir, type InjectApp } from '../helpers/app.js';
import { startRedis } from '../helpers/redis.js';
import { needs } from '../helpers/requires.js';

describe.skipIf(needs('redis', 'the Redis rate-limit store'))('Redis rate-limit store', () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let a: InjectApp;
  let b: InjectApp;
  beforeAll(async () => {
    redis = await startRedis();
    // Two instances on the same data dir share sessions (SQLite) and, through Redis, their limits.
    const dataDir = tempDir();
    a = await injectApp({ REDIS_URL: redis.url }, { dataDir });
    b = await injectApp({ REDIS_URL: redis.url }, { dataDir });
  });
  afterAll(async () => {
    await a?.close({ keepData: true });
    await b?.close();
    await redis?.stop();
  });

  it('two app instances share one limit', async () => {
    const s = await a.createSession({
      profile: 'read-only',
      rateLimits: { '*': { limit: 4, windowSeconds: 60 } },
    });
    for (const t of [a, b, a, b]) await t.call(s, 'list_directory', {}).expect(200);
    const fromA = await a.call(s, 'list_directory', {});
    const fromB = await b.call(s, 'list_directory', {});
    expect(fromA.status).toBe(429);
    expect(fromB.status).toBe(429);
    expect(fromB.headers['ratelimit']).toMatch(/^"\*";r=0;/);
  });

  it('without Redis the same two instances would each allow the full limit (control)', async () => {
    const dataDir = tempDir();
    const c = await injectApp({}, { dataDir });
    const d = await injectApp({}, { dataDir });
    try {
      const res = await c
        .admin(c.http.post('/v1/sessions'))
        .send({ rateLimits: { '*': { limit: 2, windowSeconds: 60 } } });
      const s = res.body;
      for (const t of [c, c, d, d]) await t.call(s, 'list_directory', {}).expect(200);
    } finally {
      await c.close({ keepData: true });
      await d.close();
    }
  });

  it('a REDIS_URL that cannot be reached stops the start with a clear message', async () => {
    await expect(
      injectApp({ REDIS_URL: 'redis://127.0.0.1:1', TOOLGATE_API_KEY: ADMIN_KEY }),
    ).rejects.toThrow(/REDIS_URL: cannot connect/);
  });
});
