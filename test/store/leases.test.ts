// Session owner leases on two connections to one database file, as two replicas hold them: one owner at
// a time, take-over only of a lapsed lease or of the exact lease seen (compare-and-set), the heartbeat
// telling a replica which sessions it still holds.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { MIGRATIONS } from '../../src/migrations.js';
import { openSqlDatabase } from '../../src/store/open.js';
import { LeaseStore } from '../../src/store/leases.js';
import type { SqlDatabase } from '../../src/store/sql.js';
import { SessionOwnership } from '../../src/ops/session-ownership.js';

const A = { id: 'a', url: 'http://127.0.0.1:1' };
const B = { id: 'b', url: 'http://127.0.0.1:2' };
const silent = {
  warn: () => undefined,
  error: () => undefined,
  info: () => undefined,
  debug: () => undefined,
};

describe('session leases', () => {
  const open: SqlDatabase[] = [];
  afterEach(async () => {
    for (const db of open.splice(0)) await db.close();
  });
  /** Two replicas' connections to one database. */
  const twoReplicas = async () => {
    const dataDir = tempDir();
    for (let i = 0; i < 2; i++) open.push(await openSqlDatabase({ dataDir }, MIGRATIONS));
    expect(path.isAbsolute(dataDir)).toBe(true);
    return [new LeaseStore(open[0]), new LeaseStore(open[1])] as const;
  };

  it('gives a session to one replica until its lease lapses, then to the next that asks', async () => {
    const [a, b] = await twoReplicas();
    expect((await a.acquire('s1', A, 1000, 0)).replicaId).toBe('a');
    expect((await b.acquire('s1', B, 1000, 500)).replicaId).toBe('a');
    // Renewed by its holder: still a's at 1200.
    expect(await a.renewAll('a', 1000, 900)).toEqual(new Set(['s1']));
    expect((await b.acquire('s1', B, 1000, 1200)).replicaId).toBe('a');
    // Lapsed (no beat since 900): b takes it, and a's next beat no longer lists it.
    expect(await b.acquire('s1', B, 1000, 1900)).toMatchObject({
      replicaId: 'b',
      replicaUrl: B.url,
      expiresAt: 2900,
    });
    expect(await a.renewAll('a', 1000, 2000)).toEqual(new Set());
    expect((await a.get('s1'))?.replicaId).toBe('b');
  });

  it('takes over an unreachable owner only when the lease is still the one seen, once', async () => {
    const [a, b] = await twoReplicas();
    const seen = await a.acquire('s1', A, 5000, 0);
    await a.renewAll('a', 5000, 100);
    // a renewed since b looked: the compare-and-set fails and a keeps the session.
    expect(await b.takeOver(seen, B, 5000, 200)).toBe(false);
    const fresh = (await b.get('s1'))!;
    expect(await b.takeOver(fresh, B, 5000, 300)).toBe(true);
    // A second replica acting on the same sight loses.
    expect(await a.takeOver(fresh, { id: 'c', url: 'http://127.0.0.1:3' }, 5000, 300)).toBe(false);
    expect((await a.get('s1'))?.replicaId).toBe('b');
  });

  it('lets exactly one of two replicas racing for a lapsed lease win', async () => {
    const [a, b] = await twoReplicas();
    await a.acquire('s1', { id: 'old', url: 'http://127.0.0.1:9' }, 100, 0);
    const results = await Promise.all([a.acquire('s1', A, 1000, 500), b.acquire('s1', B, 1000, 500)]);
    expect(new Set(results.map((lease) => lease.replicaId)).size).toBe(1);
  });

  it('releases one session, and all of a replica at shutdown', async () => {
    const [a] = await twoReplicas();
    await a.acquire('s1', A, 1000);
    await a.acquire('s2', A, 1000);
    await a.release('s1', 'b');
    expect((await a.list()).length).toBe(2);
    await a.release('s1', 'a');
    expect((await a.list()).map((lease) => lease.sessionId)).toEqual(['s2']);
    expect(await a.releaseAll('a')).toBe(1);
  });

  it('stops what a replica runs for a session another replica took while it missed its beats', async () => {
    const [a, b] = await twoReplicas();
    const ownership = new SessionOwnership(a, A, { leaseMs: 600, heartbeatMs: 100 }, silent);
    const lost: string[] = [];
    ownership.onLost = async (id) => {
      lost.push(id);
    };
    expect(await ownership.route('s1')).toEqual({ here: true });
    // b takes it as if a's lease had lapsed (a clock past its expiry).
    expect((await b.acquire('s1', B, 600, Date.now() + 10_000)).replicaId).toBe('b');
    ownership.start();
    const deadline = Date.now() + 3000;
    while (lost.length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await ownership.close();
    expect(lost).toEqual(['s1']);
    expect(ownership.holds('s1')).toBe(false);
    const route = await ownership.route('s1');
    expect(route).toMatchObject({ here: false, lease: { replicaId: 'b', replicaUrl: B.url } });
  });
});
