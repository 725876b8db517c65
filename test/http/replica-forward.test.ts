// The replica side of routing, in process: without replica config nothing is leased or forwarded; with
// it, the first replica to serve a session takes its lease, an unknown session gets no lease, a
// forwarded request is never forwarded again, and an owner that refuses connections has its session
// taken over (the caller retries and is served). Two replicas on one database: a request in absolute form
// is forwarded by its path, and a session token is checked against the path's session before any lease
// is taken or any forward made.
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../ops/child-server.js';
import { injectApp, tempDir, type InjectApp } from '../helpers/app.js';
import { MIGRATIONS } from '../../src/migrations.js';
import { LeaseStore } from '../../src/store/leases.js';
import { openSqlDatabase } from '../../src/store/open.js';
import type { SqlDatabase } from '../../src/store/sql.js';

/** One raw request over a socket: `target` as it is on the request line (absolute form included). */
function rawRequest(
  port: number,
  target: string,
  token: string,
  body: object,
): Promise<{ status: number; body: { success?: boolean; error?: { code: string } }; replica?: string }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: target,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as never,
            replica: res.headers['x-toolgate-replica'] as string | undefined,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('replica routing', () => {
  let t: InjectApp | undefined;
  let other: InjectApp | undefined;
  let db: SqlDatabase | undefined;
  afterEach(async () => {
    await db?.close();
    await other?.close({ keepData: true });
    await t?.close();
    db = t = other = undefined;
  });
  const leasesOf = async (dataDir: string) => {
    db ??= await openSqlDatabase({ dataDir }, MIGRATIONS);
    return new LeaseStore(db);
  };

  it('leases nothing and names no replica without replica config', async () => {
    const dataDir = tempDir();
    t = await injectApp({}, { dataDir });
    expect(t.app.services.replica).toBeUndefined();
    const session = await t.createSession({ profile: 'read-write' });
    const res = await t.call(session, 'write_file', { path: 'a.txt', content: 'a' });
    expect(res.status).toBe(200);
    expect(res.headers['x-toolgate-replica']).toBeUndefined();
    expect(await (await leasesOf(dataDir)).list()).toEqual([]);
  });

  it('takes the lease of a session it serves, none for an unknown one, and takes over an owner that is gone', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    t = await injectApp(
      { TOOLGATE_REPLICA_ID: 'r1', TOOLGATE_REPLICA_URL: `http://127.0.0.1:${port}` },
      { dataDir },
    );
    const leases = await leasesOf(dataDir);
    const session = await t.createSession({ profile: 'read-write' });
    const served = await t.call(session, 'write_file', { path: 'a.txt', content: 'a' });
    expect(served.status).toBe(200);
    expect(served.headers['x-toolgate-replica']).toBe('r1');
    expect((await leases.get(session.id))?.replicaId).toBe('r1');

    const unknown = await t.call({ id: 'ses_nobody', token: session.token }, 'read_file', { path: 'a.txt' });
    expect(unknown.status).toBe(404);
    expect(await leases.get('ses_nobody')).toBeUndefined();

    // Another session held by a replica at a closed port, its lease fresh.
    const other = await t.createSession({ profile: 'read-write' });
    const gone = { id: 'r2', url: `http://127.0.0.1:${await freePort()}` };
    await leases.acquire(other.id, gone, 60_000);
    // A request that was forwarded once is not forwarded again.
    const hop = await t.call(other, 'read_file', { path: 'a.txt' }).set('x-toolgate-forwarded-by', 'r3');
    expect(hop.status).toBe(503);
    expect(hop.body.error.code).toBe('RUNTIME_UNAVAILABLE');
    expect((await leases.get(other.id))?.replicaId).toBe('r2');
    // Forwarded to r2, refused: the lease moves here and the retry is served here.
    const refused = await t.call(other, 'write_file', { path: 'b.txt', content: 'b' });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect((await leases.get(other.id))?.replicaId).toBe('r1');
    expect((await t.call(other, 'write_file', { path: 'b.txt', content: 'b' })).status).toBe(200);
  });

  it('checks a session token against the path before routing: a token for A takes no lease of B', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    t = await injectApp(
      { TOOLGATE_REPLICA_ID: 'r1', TOOLGATE_REPLICA_URL: `http://127.0.0.1:${port}` },
      { dataDir },
    );
    const leases = await leasesOf(dataDir);
    const a = await t.createSession({ profile: 'read-write' });
    const b = await t.createSession({ profile: 'read-write' });
    const crossed = await t.call({ id: b.id, token: a.token }, 'read_file', { path: 'a.txt' });
    expect(crossed.status).toBe(404);
    expect(crossed.body.error.code).toBe('SESSION_NOT_FOUND');
    expect(await leases.get(b.id)).toBeUndefined();
  });

  it('forwards a request in absolute form by its path, and a crossed token is refused where it lands', async () => {
    const dataDir = tempDir();
    const [port1, port2] = [await freePort(), await freePort()];
    t = await injectApp(
      { TOOLGATE_REPLICA_ID: 'r1', TOOLGATE_REPLICA_URL: `http://127.0.0.1:${port1}` },
      { dataDir },
    );
    other = await injectApp(
      { TOOLGATE_REPLICA_ID: 'r2', TOOLGATE_REPLICA_URL: `http://127.0.0.1:${port2}` },
      { dataDir },
    );
    await t.app.listen({ host: '127.0.0.1', port: port1 });
    await other.app.listen({ host: '127.0.0.1', port: port2 });
    const leases = await leasesOf(dataDir);
    const a = await t.createSession({ profile: 'read-write' });
    const b = await t.createSession({ profile: 'read-write', files: { 'b.txt': 'bee\n' } });
    // r1 serves B first: it owns B's runtime.
    expect((await t.call(b, 'read_file', { path: 'b.txt' })).status).toBe(200);
    expect((await leases.get(b.id))?.replicaId).toBe('r1');

    // Absolute form to r2, which forwards to r1 by the path (the request line's scheme and host are
    // the client's business, not the owner's).
    const absolute = await rawRequest(port2, `http://x/v1/sessions/${b.id}/tools/read_file`, b.token, {
      path: 'b.txt',
    });
    expect(absolute.status).toBe(200);
    expect(absolute.replica).toBe('r1');
    expect(absolute.body.success).toBe(true);

    // A's token naming B at r2: refused there, never forwarded, and B's lease stays r1's.
    const crossed = await rawRequest(port2, `/v1/sessions/${b.id}/tools/read_file`, a.token, {
      path: 'b.txt',
    });
    expect(crossed.status).toBe(404);
    expect(crossed.replica).toBe('r2');
    expect(crossed.body.error?.code).toBe('SESSION_NOT_FOUND');
    expect((await leases.get(b.id))?.replicaId).toBe('r1');
  });
});
