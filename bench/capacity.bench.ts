// A replica's capacity (`npm run bench -- capacity`), in one run:
// 1. sessions per GB on each backend: BENCH_CAPACITY_SESSIONS sessions, each with its runtime running (one
//    call), measured per process (host-memory.ts; bwrap, and docker where an engine and the images are);
// 2. time to refuse a create when full, p50 and p99, against an admin GET /v1/sessions?limit=1 measured the
//    same way in the same run (goal: p50 ≤ 5 ms);
// 3. creates at the limit: a burst of concurrent creates past the session limit, and a burst of first calls
//    past the runtime limit with every runtime busy: every answer 201/200 or 503 CAPACITY_EXHAUSTED, none a
//    500, and the kernel's oom_kill count unchanged.
// Loopback only; everything the bench made is removed at the end.
import { readFile } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { ADMIN_KEY, fmt, percentile, startServer, timed, type BenchServer } from './lib.js';
import { containersOf, docker, dockerUnavailable, removeContainersOf } from '../test/helpers/docker.js';
import { descendantsPss, shimsPss } from './host-memory.js';

const SESSIONS = Number(process.env.BENCH_CAPACITY_SESSIONS ?? 60);
const REFUSALS = Number(process.env.BENCH_CAPACITY_REFUSALS ?? 300);
const BURST = Number(process.env.BENCH_CAPACITY_BURST ?? 100);
const MB = 1e6;

const oomKills = async (): Promise<number> => {
  const match = /^oom_kill (\d+)/m.exec(await readFile('/proc/vmstat', 'utf8').catch(() => ''));
  return Number(match?.[1] ?? 0);
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const admin = (server: BenchServer, path: string, init: RequestInit = {}) =>
  fetch(`${server.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json', ...init.headers },
  });

/**
 * Host memory per live session with a running runtime on a backend, and what 1 GB holds of them: bwrap,
 * the Pss of the service's child processes (the runtimes); docker, each container's cgroup memory (less
 * page cache) plus its containerd shim's Pss.
 */
async function perSession(env: Record<string, string>, label: string): Promise<void> {
  const server = await startServer({ TOOLGATE_MAX_SESSIONS: String(SESSIONS + 10), ...env });
  try {
    for (let i = 0; i < SESSIONS; i++)
      await callOk(server, await server.session({ profile: 'read-only' }), 'list_directory');
    await sleep(1000);
    let used: number;
    if (env.TOOLGATE_SANDBOX === 'docker') {
      const containers = await containersOf(server.dataDir);
      let cgroups = 0;
      for (const info of containers) {
        const stats = (await docker().getContainer(info.Id).stats({ stream: false })) as unknown as {
          memory_stats: { usage?: number; stats?: { cache?: number; inactive_file?: number } };
        };
        const { usage = 0, stats: detail } = stats.memory_stats;
        cgroups += usage - (detail?.inactive_file ?? detail?.cache ?? 0);
      }
      used = cgroups + (await shimsPss(containers.map((c) => c.Id)));
    } else {
      used = await descendantsPss(process.pid);
    }
    const each = used / SESSIONS;
    console.log(
      `${label}: ${SESSIONS} sessions with a running runtime: ${fmt(used / MB, 0)} MB of host memory, ` +
        `${fmt(each / MB, 1)} MB each, ${fmt(1e9 / each, 0)} sessions per GB`,
    );
  } finally {
    // Runtime containers outlive the app by design: removed before the data dir that names them.
    await server.app.close();
    if (env.TOOLGATE_SANDBOX === 'docker') await removeContainersOf(server.dataDir);
    rmSync(server.dataDir, { recursive: true, force: true });
  }
}

async function callOk(
  server: BenchServer,
  session: { id: string; token: string },
  tool: string,
): Promise<void> {
  const res = await fetch(`${server.url}/v1/sessions/${session.id}/tools/${tool}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  if (res.status !== 200) throw new Error(`${tool}: ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
}

async function refusals(): Promise<void> {
  const server = await startServer({ TOOLGATE_MAX_SESSIONS: '5' });
  try {
    for (let i = 0; i < 5; i++) await server.session({ profile: 'read-only' });
    const refuse = async () => {
      const res = await admin(server, '/v1/sessions', { method: 'POST', body: '{}' });
      if (res.status !== 503) throw new Error(`expected 503, got ${res.status}`);
      await res.arrayBuffer();
    };
    const list = async () => {
      const res = await admin(server, '/v1/sessions?limit=1');
      if (res.status !== 200) throw new Error(`list: ${res.status}`);
      await res.arrayBuffer();
    };
    await timed(50, refuse);
    await timed(50, list);
    const refused = await timed(REFUSALS, refuse);
    const listed = await timed(REFUSALS, list);
    console.log(
      `refusal when full: p50 ${fmt(percentile(refused, 50))} ms, p99 ${fmt(percentile(refused, 99))} ms ` +
        `(goal p50 ≤ 5 ms); baseline GET /v1/sessions?limit=1 p50 ${fmt(percentile(listed, 50))} ms: ` +
        `ratio ${fmt(percentile(refused, 50) / percentile(listed, 50))}×`,
    );
  } finally {
    await server.close();
  }
}

async function bursts(): Promise<void> {
  const oomBefore = await oomKills();
  const server = await startServer({ TOOLGATE_MAX_SESSIONS: '20', TOOLGATE_MAX_RUNTIMES: '4' });
  try {
    const creates = await Promise.all(
      Array.from({ length: BURST }, () =>
        admin(server, '/v1/sessions', { method: 'POST', body: JSON.stringify({ profile: 'execute' }) }),
      ),
    );
    const created = await Promise.all(
      creates.map(async (res) => ({
        status: res.status,
        body: (await res.json()) as { id: string; token: string; error?: { code: string } },
      })),
    );
    const count = (status: number) => created.filter((c) => c.status === status).length;
    const odd = created.filter(
      (c) => c.status !== 201 && !(c.status === 503 && c.body.error?.code === 'CAPACITY_EXHAUSTED'),
    );
    console.log(
      `create burst of ${BURST} at a limit of 20: ${count(201)} × 201, ${count(503)} × 503 CAPACITY_EXHAUSTED, ${odd.length} other (goal 0)`,
    );
    // Four sessions keep their runtimes busy; the others' first calls find no idle runtime to stop.
    const sessions = created.filter((c) => c.status === 201).map((c) => c.body);
    for (const busy of sessions.slice(0, 4)) {
      const res = await fetch(`${server.url}/v1/sessions/${busy.id}/tools/run_command`, {
        method: 'POST',
        headers: { authorization: `Bearer ${busy.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ command: 'sleep 20', background: true }),
      });
      if (res.status !== 200) throw new Error(`background: ${res.status} ${await res.text()}`);
    }
    const calls = await Promise.all(
      sessions.slice(4).map(async (s) => {
        const res = await fetch(`${server.url}/v1/sessions/${s.id}/tools/list_directory`, {
          method: 'POST',
          headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
          body: '{}',
        });
        return { status: res.status, code: ((await res.json()) as { error?: { code: string } }).error?.code };
      }),
    );
    const other = calls.filter((c) => c.status !== 200 && c.code !== 'CAPACITY_EXHAUSTED');
    console.log(
      `first calls of ${calls.length} sessions with 4 busy runtimes at a limit of 4: ` +
        `${calls.filter((c) => c.status === 200).length} × 200, ${calls.filter((c) => c.code === 'CAPACITY_EXHAUSTED').length} × 503 CAPACITY_EXHAUSTED, ${other.length} other (goal 0)`,
    );
  } finally {
    await server.close();
  }
  console.log(`kernel OOM kills during the bursts: ${(await oomKills()) - oomBefore} (goal 0)`);
}

await perSession({}, 'bwrap');
const noDocker = await dockerUnavailable();
if (noDocker) console.log(`docker: skipped (${noDocker})`);
else await perSession({ TOOLGATE_SANDBOX: 'docker' }, 'docker');
await refusals();
await bursts();
