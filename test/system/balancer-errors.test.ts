// HAProxy in front of the replicas (docker/haproxy/haproxy.cfg, real HAProxy on loopback) while a
// replica's dependencies fail and when no replica is up. A replica whose database is unavailable stays in
// the pool (the check, /readyz?for=balancer, leaves the shared database out) and its own JSON 503
// STORAGE_UNAVAILABLE with Retry-After reaches the client; with no replica up, HAProxy answers in the same
// JSON envelope, never its HTML page.
// The database fault is PostgreSQL going away, as the issue saw it: the replica reaches the test server
// (TOOLGATE_TEST_DATABASE_URL, which .ci/run sets) through a loopback forwarder this test owns, and
// closing the forwarder (every connection cut, new ones refused) is the server going down for this
// replica alone. A write lock held on a shared SQLite file is not the same fault: better-sqlite3 waits
// for the lock synchronously (busy_timeout), so the replica stops answering altogether.
import { spawnSync } from 'node:child_process';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '../../src/lib/errors.js';
import { freshSchema, testDatabaseUrl } from '../helpers/postgres.js';
import { ReplicaCluster } from './replica-cluster.js';

/** A TCP forwarder on loopback to `target`, that can be cut (every connection, and the port) and reopened. */
async function forwarder(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const open = async () => {
    server = createServer((client) => {
      const upstream = createConnection(target);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  };
  await open();
  return {
    get port() {
      return port;
    },
    open,
    async cut() {
      const closed = new Promise((resolve) => server?.close(resolve));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

const haproxy = spawnSync('haproxy', ['-v']).status === 0;
const enabled = haproxy && process.env.TOOLGATE_TEST_SANDBOX === undefined;
const postgres = testDatabaseUrl();
if (enabled && !postgres)
  console.log(
    'skipping the database-down case of the balancer test: TOOLGATE_TEST_DATABASE_URL is not set (.ci/run sets it)',
  );
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
  let database: Awaited<ReturnType<typeof forwarder>> | undefined;
  beforeAll(async () => {
    let databaseUrl: string | undefined;
    if (postgres) {
      const schema = new URL((await freshSchema()).url);
      database = await forwarder({ host: schema.hostname, port: Number(schema.port || 5432) });
      schema.hostname = '127.0.0.1';
      schema.port = String(database.port);
      databaseUrl = schema.href;
    }
    cluster = await ReplicaCluster.start({ replicas: 1, balancer: true, databaseUrl });
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
    await database?.cut();
  });

  it.skipIf(!postgres)(
    "keeps a replica whose database is unavailable in the pool: the client gets the replica's STORAGE_UNAVAILABLE",
    async () => {
      const balancer = cluster.balancerUrl!;
      await database!.cut();
      try {
        const ready = await fetch(`${cluster.replicas[0].url}/readyz`);
        expect(ready.status).toBe(503);
        expect(((await ready.json()) as { checks: { database: { ok: boolean } } }).checks.database.ok).toBe(
          false,
        );
        // Long enough for HAProxy to take out a replica failing its check.
        await settle();
        expect((await fetch(`${cluster.replicas[0].url}/readyz?for=balancer`)).status).toBe(200);
        const created = await cluster.admin(balancer, '/v1/sessions', { method: 'POST', body: '{}' });
        await expectEnvelope(created, 'STORAGE_UNAVAILABLE');
        expect(Number(created.headers.get('retry-after'))).toBeGreaterThan(0);
      } finally {
        await database!.open();
      }
      // The database back: the same replica serves again (the pool reconnects).
      let created: Response | undefined;
      for (let i = 0; i < 50; i++) {
        created = await cluster.admin(balancer, '/v1/sessions', { method: 'POST', body: '{}' });
        if (created.status === 201) break;
        await created.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(created!.status).toBe(201);
      await created!.body?.cancel();
    },
    60_000,
  );

  it('answers in the JSON envelope, with Retry-After, when no replica is up', async () => {
    await cluster.kill(cluster.replicas[0]);
    await settle();
    const res = await cluster.admin(cluster.balancerUrl!, '/v1/sessions', { method: 'POST', body: '{}' });
    await expectEnvelope(res, 'NO_REPLICA_AVAILABLE');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  }, 30_000);
});
