// A full replica behind HAProxy (issue 44): its /readyz says full, HAProxy's check takes it out of the
// rotation, new sessions are made on the other replica, and the full replica's own sessions keep working
// (the other replica forwards to their owner). When a session goes, it is back.
// Slow (process starts): behind TOOLGATE_TEST_REPLICAS=1, which .ci/run sets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVED_BY } from '../../src/http/replica-forward.js';
import { CHILD_ADMIN_KEY } from '../ops/child-server.js';
import { ReplicaCluster, sessionCall } from './replica-cluster.js';

const enabled = process.env.TOOLGATE_TEST_REPLICAS === '1' && process.env.TOOLGATE_TEST_SANDBOX === undefined;
if (!enabled) console.log('skipping the replicas capacity test: set TOOLGATE_TEST_REPLICAS=1 (.ci/run does)');

/** Polls until `check` holds (HAProxy takes a replica out after two failed checks, 500 ms apart). */
async function eventually(check: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * The replicas that answer, through the balancer, for 24 made-up session ids: the balancer hashes the id,
 * so with both replicas in its rotation both answer some (each 404: no such session).
 */
async function servers(balancer: string): Promise<Set<string>> {
  const seen = new Set<string>();
  for (let i = 0; i < 24; i++) {
    const res = await fetch(`${balancer}/v1/sessions/ses_probe${i}x${Date.now()}`, {
      headers: { authorization: `Bearer ${CHILD_ADMIN_KEY}` },
    });
    const by = res.headers.get(SERVED_BY);
    if (by) seen.add(by);
  }
  return seen;
}

describe.skipIf(!enabled)('replicas: a full replica', () => {
  let cluster: ReplicaCluster;
  beforeAll(async () => {
    cluster = await ReplicaCluster.start({
      replicas: 2,
      balancer: true,
      env: { TOOLGATE_SANDBOX: 'auto' },
      // r1 holds one session at most; r2 the machine's default.
      envOf: (id): Record<string, string> => (id === 'r1' ? { TOOLGATE_MAX_SESSIONS: '1' } : {}),
    });
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it("leaves HAProxy's rotation for new sessions while its own sessions keep working, and comes back", async () => {
    const [r1] = cluster.replicas;
    const balancer = cluster.balancerUrl!;
    // Both replicas in the rotation to begin with.
    await eventually(async () => (await servers(balancer)).size === 2, 'both replicas answer');
    // A session r1 owns (its first call is served there): r1 is full.
    const held = await cluster.session(r1.url, { profile: 'read-write', files: { 'a.txt': 'kept\n' } });
    const first = await sessionCall(r1.url, held, 'read_file', { path: 'a.txt' });
    expect(first.status).toBe(200);
    expect(first.headers.get(SERVED_BY)).toBe('r1');
    const refused = await cluster.admin(r1.url, '/v1/sessions', { method: 'POST', body: '{}' });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('10');
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('CAPACITY_EXHAUSTED');
    const ready = await fetch(`${r1.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { checks: { capacity: { full: boolean } } }).checks.capacity.full).toBe(
      true,
    );

    // HAProxy takes r1 out: requests it would hash to r1 go to r2, and no new session is refused.
    await eventually(async () => (await servers(balancer)).has('r1') === false, 'HAProxy takes r1 out');
    for (let i = 0; i < 5; i++) {
      const res = await cluster.admin(balancer, '/v1/sessions', { method: 'POST', body: '{}' });
      expect(res.status).toBe(201);
      expect(res.headers.get(SERVED_BY)).toBe('r2');
    }
    // r1's session still answers through the balancer (r2 forwards to its owner), writes included.
    for (let i = 0; i < 5; i++) {
      const wrote = await sessionCall(balancer, held, 'write_file', { path: `b${i}.txt`, content: `${i}\n` });
      expect(wrote.status).toBe(200);
      const read = await sessionCall(balancer, held, 'read_file', { path: 'a.txt' });
      expect(read.status).toBe(200);
      expect(((await read.json()) as { data: { content: string } }).data.content).toContain('kept');
    }

    // The session goes: r1 has room, /readyz is ready again and HAProxy brings r1 back.
    const deleted = await fetch(`${r1.url}/v1/sessions/${held.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${CHILD_ADMIN_KEY}` },
    });
    expect(deleted.status).toBe(204);
    expect((await fetch(`${r1.url}/readyz`)).status).toBe(200);
    await eventually(async () => (await servers(balancer)).has('r1'), 'HAProxy brings r1 back');
  }, 120_000);
});
