// HAProxy in front of the replicas (docker/haproxy/haproxy.cfg, real HAProxy on loopback) while a
// replica's dependencies fail and when no replica is up. A replica whose database is unavailable stays in
// the pool (the check, /readyz?for=balancer, leaves the shared database out) and its own JSON 503
// STORAGE_UNAVAILABLE with Retry-After reaches the client; with no replica up, HAProxy answers in the same JSON envelope, never its HTML page.
// The database fault is SQLite's write lock held by this test (/readyz fails on it exactly as it does with
// PostgreSQL down), so no PostgreSQL server is needed.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '../../src/lib/errors.js';
import { Database } from '../../src/store/sqlite-driver.js';
import { ReplicaCluster } from './replica-cluster.js';

const haproxy = spawnSync('haproxy', ['-v']).status === 0;
const enabled = haproxy && process.env.TOOLGATE_TEST_SANDBOX === undefined;
if (!enabled) {
  console.log(
    haproxy
      ? 'skipping the balancer error test in this project: it runs once, in the bwrap project'
      : 'skipping the balancer error test: haproxy is not installed',
  );
}

/** Fall 2 × inter 500 ms in haproxy.cfg, with room for a loaded machine. */
const CHECKS_SETTLE_MS = 2_500;
const settle = () => new Promise((resolve) => setTimeout(resolve, CHECKS_SETTLE_MS));

const expectEnvelope = async (res: Response, code: ErrorCode) => {
  const text = await res.text();
  expect(res.headers.get('content-type') ?? '', text).toMatch(/^application\/json/);
  const body = JSON.parse(text) as { success: boolean; error: { code: string; type: string } };
  expect(body.success).toBe(false);
  expect(body.error.code).toBe(code);
  expect(res.status).toBe(ERROR_CODES[code].status);
  expect(body.error.type).toBe(ERROR_CODES[code].type);
};

describe.skipIf(!enabled)('HAProxy in front of the replicas: every answer is JSON', () => {
  let cluster: ReplicaCluster;
  beforeAll(async () => {
    cluster = await ReplicaCluster.start({ replicas: 1, balancer: true });
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it("keeps a replica whose database is unavailable in the pool: the client gets the replica's STORAGE_UNAVAILABLE", async () => {
    const balancer = cluster.balancerUrl!;
    const lock = new Database(path.join(cluster.dataDir, 'toolgate.db'));
    lock.pragma('busy_timeout = 0');
    lock.prepare('BEGIN IMMEDIATE').run();
    try {
      expect((await fetch(`${cluster.replicas[0].url}/readyz`)).status).toBe(503);
      // Long enough for HAProxy to take out a replica failing its check.
      await settle();
      const created = await cluster.admin(balancer, '/v1/sessions', { method: 'POST', body: '{}' });
      await expectEnvelope(created, 'STORAGE_UNAVAILABLE');
      expect(Number(created.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      lock.prepare('ROLLBACK').run();
      lock.close();
    }
    const created = await cluster.admin(balancer, '/v1/sessions', { method: 'POST', body: '{}' });
    expect(created.status).toBe(201);
    await created.body?.cancel();
  }, 60_000);

  it('answers in the JSON envelope, with Retry-After, when no replica is up', async () => {
    await cluster.kill(cluster.replicas[0]);
    await settle();
    const res = await cluster.admin(cluster.balancerUrl!, '/v1/sessions', { method: 'POST', body: '{}' });
    await expectEnvelope(res, 'NO_REPLICA_AVAILABLE');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  }, 30_000);
});
