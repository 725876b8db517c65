// The docker runtime backend against bwrap, in one run (`npm run bench -- runtimes`): a new session's
// first call (its runtime starts cold: container create + start + attach vs a bwrap namespace), read_file
// per call and `run_command true` per call on a running runtime (ratios docker/bwrap; goals ≤ 1.2 and
// ≤ 1.5), and an idle runtime's memory (the runtime's RSS, and for docker the container's cgroup usage).
// Then, on docker: a new session's first call with a pool of pre-started containers (BENCH_POOL, default
// 2), and restart survival (kill -9 of the service, run as a process of its own, during a background job
// of BENCH_RESTART_SECONDS, default 60; 0 skips it). Docker is skipped, with the reason, where no engine
// or image is there. Loopback only; containers the bench made are removed at the end.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { ADMIN_KEY, callTool, fmt, percentile, startServer, timed } from './lib.js';
import { startChildProcess } from './child.js';
import { instanceId } from '../src/runtime/backends/docker/index.js';
import { LABELS } from '../src/runtime/backends/docker/container-spec.js';

const COLD = Number(process.env.BENCH_COLD_STARTS ?? 8);
/** Containers kept started ahead per image in the pooled pass (runtimeBackend.pool). */
const POOL = Number(process.env.BENCH_POOL ?? 2);
/** The background job of the restart-survival run: this many lines, one a second (0: no such run). */
const RESTART_JOB_SECONDS = Number(process.env.BENCH_RESTART_SECONDS ?? 60);
const KILL_AFTER_SECONDS = Math.min(10, Math.floor(RESTART_JOB_SECONDS / 3));
const READS = Number(process.env.BENCH_READS ?? 300);
const COMMANDS = Number(process.env.BENCH_COMMANDS ?? 40);
const MB = 1024 * 1024;
const docker = new Docker({ socketPath: '/var/run/docker.sock' });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A config file for the docker backend (base image only), with `pool` containers of it kept ahead. */
function dockerConfig(pool: number): { file: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-bench-config-'));
  const file = path.join(dir, 'config.json');
  writeFileSync(
    file,
    JSON.stringify({ runtimeBackend: { type: 'docker', pool: pool ? { base: pool } : {} } }),
  );
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Removes every container of the toolgate on `dataDir` (they outlive the service by design). */
async function removeContainers(dataDir: string): Promise<void> {
  const mine = await docker.listContainers({
    all: true,
    filters: { label: [`${LABELS.instance}=${instanceId(dataDir)}`] },
  });
  for (const c of mine)
    await docker
      .getContainer(c.Id)
      .remove({ force: true })
      .catch(() => undefined);
}

/** Running pooled containers of the toolgate on `dataDir` still waiting for a session. */
async function waitingInPool(dataDir: string): Promise<number> {
  const running = await docker.listContainers({
    filters: { label: [`${LABELS.instance}=${instanceId(dataDir)}`, LABELS.pool], status: ['running'] },
  });
  return running.filter((c) => c.Names[0]?.includes('-pool.')).length;
}

const results: Record<string, { cold: number; read: number; command: number }> = {};
for (const backend of ['bwrap', 'docker'] as const) {
  const server = await startServer({ TOOLGATE_SANDBOX: backend }).catch((err: Error) => {
    console.log(`[${backend}] not available here (${err.message.slice(0, 160)}); skipped`);
    return undefined;
  });
  if (!server) continue;
  if (server.app.services.runner.status.backend !== backend) {
    console.log(`[${backend}] not available here; skipped`);
    await server.close();
    continue;
  }
  const dataDir = server.dataDir;
  try {
    const call = (session: { id: string; token: string }, tool: string, input: object) =>
      callTool(server.url, session, tool, input);
    const sessions: Array<{ id: string; token: string }> = [];
    for (let i = 0; i < COLD; i++) sessions.push(await server.session());
    let next = 0;
    const cold = await timed(COLD, () => call(sessions[next++], 'list_directory', { path: '.' }));
    const s = sessions[0];
    await call(s, 'write_file', { path: 'a.txt', content: 'x'.repeat(2000) });
    await timed(20, () => call(s, 'read_file', { path: 'a.txt' }));
    const read = await timed(READS, () => call(s, 'read_file', { path: 'a.txt' }));
    const command = await timed(COMMANDS, () => call(s, 'run_command', { command: 'true' }));
    results[backend] = {
      cold: percentile(cold, 50),
      read: percentile(read, 50),
      command: percentile(command, 50),
    };
    console.log(
      `[${backend}] first call (cold runtime): p50 ${fmt(percentile(cold, 50))} ms, p95 ${fmt(percentile(cold, 95))} ms`,
    );
    console.log(`[${backend}] read_file per call      : p50 ${fmt(percentile(read, 50))} ms`);
    console.log(`[${backend}] run_command true        : p50 ${fmt(percentile(command, 50))} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const res = await fetch(`${server.url}/v1/sessions/${s.id}`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    const rss = ((await res.json()) as { runtime: { rssBytes?: number } }).runtime.rssBytes ?? 0;
    let container = '';
    if (backend === 'docker') {
      const [info] = await docker.listContainers({ filters: { label: [`${LABELS.session}=${s.id}`] } });
      const stats = (await docker.getContainer(info.Id).stats({ stream: false })) as {
        memory_stats: { usage?: number; stats?: { cache?: number } };
      };
      const usage = (stats.memory_stats.usage ?? 0) - (stats.memory_stats.stats?.cache ?? 0);
      container = `; container memory (cgroup, less page cache) ${fmt(usage / MB, 1)} MB`;
    }
    console.log(`[${backend}] idle runtime RSS        : ${fmt(rss / MB, 1)} MB${container}`);
  } finally {
    await server.app.close();
    if (backend === 'docker') await removeContainers(dataDir);
    await server.close().catch(() => undefined);
  }
}

// A new session's first call on docker with a pool of pre-started containers: each session is made once
// the pool has refilled (as a session that comes along some while after the last one finds it).
let pooled: number | undefined;
if (results.docker && POOL > 0) {
  const config = dockerConfig(POOL);
  const server = await startServer({ TOOLGATE_SANDBOX: 'docker', TOOLGATE_CONFIG: config.file });
  try {
    const ms: number[] = [];
    for (let i = 0; i < COLD; i++) {
      const deadline = Date.now() + 30_000;
      while ((await waitingInPool(server.dataDir)) < POOL && Date.now() < deadline) await sleep(100);
      const session = await server.session();
      const began = performance.now();
      await callTool(server.url, session, 'list_directory', { path: '.' });
      ms.push(performance.now() - began);
    }
    pooled = percentile(ms, 50);
    console.log(
      `[docker, pool ${POOL}] first call (pooled runtime): p50 ${fmt(pooled)} ms, p95 ${fmt(percentile(ms, 95))} ms`,
    );
  } finally {
    await server.app.close();
    await removeContainers(server.dataDir);
    await server.close().catch(() => undefined);
    config.remove();
  }
}
if (results.bwrap && results.docker) {
  const { bwrap, docker: d } = results;
  console.log(
    `docker/bwrap: first call ${fmt(d.cold / bwrap.cold)}× (goal p50 ≤ 1000 ms cold: ${d.cold <= 1000 ? 'met' : 'NOT met'}), ` +
      `read_file ${fmt(d.read / bwrap.read)}× (goal ≤ 1.2: ${d.read / bwrap.read <= 1.2 ? 'met' : 'NOT met'}), ` +
      `run_command true ${fmt(d.command / bwrap.command)}× (goal ≤ 1.5: ${d.command / bwrap.command <= 1.5 ? 'met' : 'NOT met'})`,
  );
  if (pooled !== undefined)
    console.log(
      `docker first call with the pool: p50 ${fmt(pooled)} ms, ${fmt(pooled / bwrap.cold)}× bwrap's cold start (goal p50 ≤ 100 ms: ${pooled <= 100 ? 'met' : 'NOT met'})`,
    );
}

// Restart survival, for real: the service is a process of its own on the docker backend; a background job
// prints a line a second; the service is killed with SIGKILL a while in, started again on the same data
// dir, and the job must end normally with every line once.
if (results.docker && RESTART_JOB_SECONDS > 0) await restartSurvival();

async function restartSurvival(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'toolgate-bench-restart-'));
  const env = { TOOLGATE_SANDBOX: 'docker', TOOLGATE_DATA_DIR: dataDir, TOOLGATE_API_KEY: ADMIN_KEY };
  let server = await startChildProcess('src/server.ts', env, '/healthz');
  try {
    const res = await fetch(`${server.url}/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const session = (await res.json()) as { id: string; token: string };
    const started = await callTool(server.url, session, 'run_command', {
      command: `for i in $(seq 1 ${RESTART_JOB_SECONDS}); do echo line $i; sleep 1; done`,
      background: true,
      timeout_ms: (RESTART_JOB_SECONDS + 60) * 1000,
    });
    const jobId = started.data.jobId as string;
    await sleep(KILL_AFTER_SECONDS * 1000);
    const killed = new Promise((resolve) => server.proc.once('exit', resolve));
    server.proc.kill('SIGKILL');
    await killed;
    const down = performance.now();
    server = await startChildProcess('src/server.ts', env, '/healthz');
    const back = performance.now() - down;
    // The job's last line comes RESTART_JOB_SECONDS after its start; wait past it.
    const waited = await callTool(server.url, session, 'job_wait', {
      job_id: jobId,
      timeout_ms: (RESTART_JOB_SECONDS + 30) * 1000,
    });
    const job = (waited.data as { finished: boolean; job: { status: string; exitCode: number | null } }).job;
    const output = (await callTool(server.url, session, 'job_output', { job_id: jobId })).data
      .output as string;
    const lines = output.split('\n').filter(Boolean);
    const expected = Array.from({ length: RESTART_JOB_SECONDS }, (_, i) => `line ${i + 1}`);
    const missing = expected.filter((line) => !lines.includes(line));
    const doubled = lines.length - new Set(lines).size;
    const whole = missing.length === 0 && doubled === 0 && lines.length === expected.length;
    console.log(
      `[docker] restart survival: kill -9 of the service ${KILL_AFTER_SECONDS} s into a ${RESTART_JOB_SECONDS} s job, ` +
        `service back in ${fmt(back / 1000, 1)} s; job ${job.status} with exit ${job.exitCode}, ` +
        `${lines.length}/${expected.length} lines (${missing.length} missing, ${doubled} doubled): ` +
        `${whole && job.status === 'exited' && job.exitCode === 0 ? 'met' : 'NOT met'}`,
    );
  } finally {
    await server.close().catch(() => undefined);
    await removeContainers(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
