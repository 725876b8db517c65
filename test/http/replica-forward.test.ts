// The replica side of routing, in process: without replica config nothing is leased or forwarded; with
// it, the first replica to serve a session takes its lease, an unknown session gets no lease, a
// forwarded request is never forwarded again, and an owner that refuses connections has its session
// taken over (the caller retries and is served).
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../ops/child-server.js';
import { injectApp, tempDir, type InjectApp } from '../helpers/app.js';
import { MIGRATIONS } from '../../src/migrations.js';
import { LeaseStore } from '../../src/store/leases.js';
import { openSqlDatabase } from '../../src/store/open.js';
import type { SqlDatabase } from '../../src/store/sql.js';

describe('replica routing', () => {
  let t: InjectApp | undefined;
  let db: SqlDatabase | undefined;
  afterEach(async () => {
    await db?.close();
    await t?.close();
    db = t = undefined;
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
});
