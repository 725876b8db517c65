// The eval runner's own cost (issue 33): one-call cases (a seeded file, read_file, a data expectation)
// run by the runner vs the same requests made directly — create the session, call the tool, delete the
// session — through the same in-process transport, in the same run, in alternating blocks. Sequential,
// so the difference per case is the runner's overhead (goal ≤ 20 ms); then 500 such cases at the
// default concurrency (goal ≤ 30 s). Wall times and CPU times both: on a busy machine the wall time
// measures the neighbours, the CPU (service, runner and every session's runtime) what a case costs.
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { availableParallelism, loadavg } from 'node:os';
import { parseDataset } from '../src/evals/dataset.js';
import { DEFAULT_CONCURRENCY, runEvals, type EvalTarget } from '../src/evals/runner.js';
import { injectTransport, jsonOf } from '../src/evals/transport.js';
import { ADMIN_KEY, fmt, percentile, startServer } from './lib.js';

const ROUNDS = Number(process.env.BENCH_EVAL_CASES ?? 100);
const BULK = 500;
const BLOCK = 10;
const cores = availableParallelism();
const TICKS_PER_SECOND = 100;
const CPUACCT = '/sys/fs/cgroup/cpuacct';

/**
 * A cgroup (v1 cpuacct) of this bench's own, so the CPU of every process of the run — service, runner
 * and each session's runtime with what it spawned, also after they exited — is counted, and nothing
 * else. Without one (no cgroup v1, not root): this process and its reaped children from /proc/self/stat,
 * which misses what the sandbox's own init reaps.
 */
function cpuMeter(): { seconds(): number; source: string; close(): Promise<void> } {
  const dir = path.join(CPUACCT, `toolgate-bench-evals-${process.pid}`);
  try {
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'cgroup.procs'), String(process.pid));
    return {
      source: 'cpuacct cgroup',
      seconds: () => Number(readFileSync(path.join(dir, 'cpuacct.usage'), 'utf8')) / 1e9,
      async close() {
        // Back to the root group: this process and what still runs of its children (tsx's esbuild
        // service lives as long as the bench), then the group can go.
        const procs = readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean);
        for (const pid of procs) writeFileSync(path.join(CPUACCT, 'cgroup.procs'), pid);
        // Processes that just exited leave the group a moment later: EBUSY until then.
        for (let attempt = 0; ; attempt++) {
          try {
            return rmdirSync(dir);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'EBUSY' || attempt === 50) throw err;
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        }
      },
    };
  } catch {
    // A group made but not joined is removed again.
    try {
      rmdirSync(dir);
    } catch {
      // never made
    }
    return {
      source: '/proc/self/stat',
      seconds() {
        const stat = readFileSync('/proc/self/stat', 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / TICKS_PER_SECOND;
      },
      async close() {},
    };
  }
}

const oneCall = (i: number) => ({
  name: `case ${i}`,
  tool: 'read_file',
  files: { 'a.txt': `line ${i}\n` },
  input: { path: 'a.txt' },
  expect: { data: { content: `line ${i}`, totalLines: 1 } },
});
const dataset = (n: number) =>
  parseDataset('bench', JSON.stringify(Array.from({ length: n }, (_, i) => oneCall(i))), 'json');

const meter = cpuMeter();
const cpuSeconds = () => meter.seconds();
const server = await startServer();
try {
  const transport = injectTransport(server.app);
  const target: EvalTarget = { variant: { name: 'default' }, transport, adminToken: ADMIN_KEY };

  /** The requests of one case, made by hand: what the runner cannot do with less. Timed as the runner times a case. */
  async function direct(i: number): Promise<number> {
    const started = performance.now();
    const created = await transport.send({
      method: 'POST',
      url: '/v1/sessions',
      token: ADMIN_KEY,
      body: { profile: 'full', files: { 'a.txt': `line ${i}\n` } },
    });
    const session = jsonOf(created) as { id: string; token: string };
    const res = await transport.send({
      method: 'POST',
      url: `/v1/sessions/${session.id}/tools/read_file`,
      token: session.token,
      body: { path: 'a.txt' },
    });
    if (res.status !== 200) throw new Error(`read_file: ${res.status}`);
    const elapsed = performance.now() - started;
    await transport.send({ method: 'DELETE', url: `/v1/sessions/${session.id}`, token: ADMIN_KEY });
    return elapsed;
  }

  // Warm-up: both paths, so neither pays for first-use compilation.
  for (let i = 0; i < BLOCK; i++) await direct(i);
  await runEvals([dataset(BLOCK)], [target], { concurrency: 1 });

  // Blocks of BLOCK cases in turn, direct then runner, so a change in the machine's load hits both.
  const directTimes: number[] = [];
  const runnerTimes: number[] = [];
  const ownOverhead: number[] = [];
  let directCpu = 0;
  let runnerCpu = 0;
  for (let done = 0; done < ROUNDS; done += BLOCK) {
    let cpu = cpuSeconds();
    for (let i = 0; i < BLOCK; i++) directTimes.push(await direct(done + i));
    directCpu += cpuSeconds() - cpu;
    cpu = cpuSeconds();
    const block = await runEvals([dataset(BLOCK)], [target], { concurrency: 1 });
    runnerCpu += cpuSeconds() - cpu;
    const [variant] = block.variants;
    if (variant.passed !== variant.total) throw new Error(`${variant.total - variant.passed} cases failed`);
    runnerTimes.push(...variant.cases.map((c) => c.caseMs));
    ownOverhead.push(...variant.cases.map((c) => c.overheadMs));
  }
  const directP50 = percentile(directTimes, 50);
  const runnerP50 = percentile(runnerTimes, 50);
  const perCase = (cpu: number) => (cpu / directTimes.length) * 1000;
  console.log(
    `one-call case, requests made directly: p50 ${fmt(directP50)} ms, p95 ${fmt(percentile(directTimes, 95))} ms, CPU ${fmt(perCase(directCpu))} ms`,
  );
  console.log(
    `one-call case, through the runner    : p50 ${fmt(runnerP50)} ms, p95 ${fmt(percentile(runnerTimes, 95))} ms, CPU ${fmt(perCase(runnerCpu))} ms`,
  );
  console.log(
    `runner overhead per case: wall p50 ${fmt(runnerP50 - directP50)} ms, CPU ${fmt(perCase(runnerCpu - directCpu))} ms (goal ≤ 20 ms)`,
  );
  console.log(
    `runner overhead per case, its own measure (case wall time less its requests): p50 ${fmt(percentile(ownOverhead, 50))} ms, p95 ${fmt(percentile(ownOverhead, 95))} ms`,
  );

  const started = performance.now();
  const cpuBefore = cpuSeconds();
  const bulk = await runEvals([dataset(BULK)], [target], { concurrency: DEFAULT_CONCURRENCY });
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuSeconds() - cpuBefore;
  console.log(`CPU measured by ${meter.source}`);
  const [all] = bulk.variants;
  console.log(
    `${BULK} one-call cases, concurrency ${DEFAULT_CONCURRENCY}: ${fmt(seconds)} s, ${all.passed}/${all.total} passed (goal ≤ 30 s)`,
  );
  console.log(
    `  CPU ${fmt(cpu)} s (${fmt((cpu / BULK) * 1000)} ms per case): on ${cores} idle cores at least ${fmt(cpu / cores)} s; load average ${loadavg()[0].toFixed(1)}`,
  );
  console.log(`sessions left behind: ${await server.app.services.sessions.countActive()}`);
} finally {
  await server.close();
  await meter.close();
}
