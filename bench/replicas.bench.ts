// npm run bench -- replicas: toolgate as several replicas behind HAProxy (docker/haproxy/haproxy.cfg), on
// loopback, sharing one data dir and database (a SQLite file; TOOLGATE_TEST_DATABASE_URL=postgres://…
// runs them on PostgreSQL once its driver is in).
// - Failover: kill -9 of a session's owner, then the time until the session answers again through the
//   balancer (served by another replica), over FAILOVER_KILLS kills (default 10): p50 and max. Goal (issue
//   31): p50 ≤ 3 s, max ≤ 10 s.
// - Throughput: read_file calls/s over 12 sessions with 1, 2 and 3 replicas behind HAProxy; baseline in
//   the same run: one replica without the balancer, measured in each of BENCH_ROUNDS rounds (default 3)
//   and each ratio taken within its round. This machine's cores bound the curve (see the output).
// - Audit-heavy read_file on PostgreSQL vs SQLite (one replica each, same run; goal ≥ 0.7×): runs when
//   TOOLGATE_BENCH_DATABASE_URL names a PostgreSQL database (an empty one: the replicas' tables are made
//   there), once the stores run on SqlDatabase (until then they open SQLite whatever DATABASE_URL says).
import { availableParallelism } from 'node:os';
import autocannon from 'autocannon';
import { fmt, percentile } from './lib.js';
import { ReplicaCluster, sessionCall } from '../test/system/replica-cluster.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const KILLS = Number(process.env.FAILOVER_KILLS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SESSIONS = 12;
const CONNECTIONS = 24;
// bwrap where it works: a moved session's runtime starts again on the shared workspace, as in production.
const ENV = { TOOLGATE_SANDBOX: 'auto' };
const POSTGRES = process.env.TOOLGATE_BENCH_DATABASE_URL || undefined;

type Session = { id: string; token: string };

/** Sessions with a file each, first served through `base` (so the balancer's hash picks each owner). */
async function sessionsWithFile(cluster: ReplicaCluster, base: string, count: number): Promise<Session[]> {
  const sessions: Session[] = [];
  for (let i = 0; i < count; i++) {
    const session = await cluster.session(base, { profile: 'read-write' });
    const res = await sessionCall(base, session, 'write_file', {
      path: 'f.txt',
      content: 'line\n'.repeat(200),
    });
    if (res.status !== 200) throw new Error(`write_file: ${res.status} ${await res.text()}`);
    sessions.push(session);
  }
  return sessions;
}

/** read_file calls/s through `base`, spread over the sessions; every answer must be 200. */
async function readLoad(
  base: string,
  sessions: Session[],
): Promise<{ perSecond: number; p50: number; bad: number }> {
  let n = 0;
  const result = await autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => {
          const session = sessions[n++ % sessions.length];
          return {
            ...request,
            method: 'POST',
            path: `/v1/sessions/${session.id}/tools/read_file`,
            headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ path: 'f.txt', limit: 50 }),
          };
        },
      },
    ],
  });
  return { perSecond: result.requests.average, p50: result.latency.p50, bad: result.non2xx + result.errors };
}

/**
 * read_file calls/s through the balancer, or straight to the first replica (the baseline), or — with
 * `forwarded` — to the second replica while the first owns every session: each call forwarded once.
 */
async function measure(replicas: number, balancer: boolean, forwarded = false) {
  const cluster = await ReplicaCluster.start({ replicas, balancer, env: ENV });
  try {
    const owner = balancer ? cluster.balancerUrl! : cluster.replicas[0].url;
    const sessions = await sessionsWithFile(cluster, owner, SESSIONS);
    return await readLoad(forwarded ? cluster.replicas[1].url : owner, sessions);
  } finally {
    await cluster.close();
  }
}

async function throughput(): Promise<boolean> {
  console.log(
    `read_file, ${SESSIONS} sessions, ${CONNECTIONS} connections, ${SECONDS} s a run, ${ROUNDS} rounds (loopback)`,
  );
  // Each round measures the baseline right before the others, and each ratio is taken within its round:
  // the machine's load drifts (other work on it), a round's runs see about the same.
  const setups = [
    { label: 'baseline, 1 replica direct', replicas: 1, balancer: false },
    { label: '1 replica behind HAProxy', replicas: 1, balancer: true },
    { label: '2 replicas behind HAProxy', replicas: 2, balancer: true },
    { label: '3 replicas behind HAProxy', replicas: 3, balancer: true },
    { label: '2 replicas, every call forwarded', replicas: 2, balancer: false, forwarded: true },
  ];
  const rates = setups.map(() => [] as number[]);
  const ratios = setups.map(() => [] as number[]);
  let bad = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, setup] of setups.entries()) {
      const run = await measure(setup.replicas, setup.balancer, setup.forwarded);
      bad += run.bad;
      rates[i].push(run.perSecond);
      ratios[i].push(run.perSecond / rates[0][round]);
    }
  }
  for (const [i, setup] of setups.entries()) {
    console.log(
      `  ${setup.label.padEnd(32)} median ${fmt(percentile(rates[i], 50), 0).padStart(5)}/s  ${fmt(percentile(ratios[i], 50))}× baseline  (runs: ${rates[i].map((r) => fmt(r, 0)).join(' ')})`,
    );
  }
  console.log(`  non-200 answers: ${bad}`);
  console.log(
    `  bound: ${availableParallelism()} cores shared by every replica, HAProxy and the load generator`,
  );
  return bad === 0;
}

async function failover(): Promise<boolean> {
  // On PostgreSQL when one is given (the replicas' state there, as in production), else the SQLite file.
  const cluster = await ReplicaCluster.start({
    replicas: 3,
    balancer: true,
    env: ENV,
    ...(POSTGRES ? { databaseUrl: POSTGRES } : {}),
  });
  const times: number[] = [];
  try {
    const base = cluster.balancerUrl!;
    for (let kill = 0; kill < KILLS; kill++) {
      const session = await cluster.session(base, { profile: 'read-write' });
      const first = await sessionCall(base, session, 'write_file', { path: 'f.txt', content: 'x\n' });
      const ownerId = first.headers.get('x-toolgate-replica');
      await first.text();
      const owner = cluster.replicas.find((replica) => replica.id === ownerId);
      if (!owner) throw new Error(`no replica named ${ownerId} served the session`);
      const killedAt = Date.now();
      await cluster.kill(owner);
      for (;;) {
        const res = await sessionCall(base, session, 'read_file', { path: 'f.txt' }).catch(() => undefined);
        const served = res?.status === 200 && res.headers.get('x-toolgate-replica') !== ownerId;
        await res?.text();
        if (served) break;
        if (Date.now() - killedAt > 30_000) throw new Error('the session did not answer again within 30 s');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      times.push(Date.now() - killedAt);
      // Back with the same id (its crash journal is replayed), so every round has three replicas.
      await cluster.startReplica(owner);
      await new Promise((resolve) => setTimeout(resolve, 1500));
    }
  } finally {
    await cluster.close();
  }
  const p50 = percentile(times, 50);
  const max = Math.max(...times);
  console.log(
    `failover (${POSTGRES ? 'PostgreSQL' : 'SQLite file'}): kill -9 of a session's owner → the session answers through HAProxy from another replica`,
  );
  console.log(`  ${times.length} kills: p50 ${p50} ms, max ${max} ms (goal: p50 ≤ 3000, max ≤ 10000)`);
  console.log(`  each: ${times.join(' ')} ms`);
  return p50 <= 3000 && max <= 10_000;
}

/** Hook for the PostgreSQL driver: audit-heavy read_file, one replica on PostgreSQL vs one on SQLite. */
async function postgresVsSqlite(): Promise<boolean> {
  const url = POSTGRES;
  if (!url) {
    console.log(
      'postgres vs sqlite: skipped (set TOOLGATE_BENCH_DATABASE_URL=postgres://… once the stores run on SqlDatabase)',
    );
    return true;
  }
  const rates: number[] = [];
  for (const databaseUrl of [undefined, url]) {
    const cluster = await ReplicaCluster.start({
      replicas: 1,
      env: ENV,
      ...(databaseUrl ? { databaseUrl } : {}),
    });
    try {
      const base = cluster.replicas[0].url;
      rates.push((await readLoad(base, await sessionsWithFile(cluster, base, SESSIONS))).perSecond);
    } finally {
      await cluster.close();
    }
  }
  const ratio = rates[1] / rates[0];
  console.log(
    `audit-heavy read_file: SQLite ${fmt(rates[0], 0)}/s, PostgreSQL ${fmt(rates[1], 0)}/s: ${fmt(ratio)}× (goal ≥ 0.7)`,
  );
  return ratio >= 0.7;
}

const results = [await throughput(), await failover(), await postgresVsSqlite()];
process.exit(results.every(Boolean) ? 0 : 1);
