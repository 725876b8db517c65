// npm run bench -- neighbours: does one hostile session slow the others down? 20 well-behaved sessions
// (read_file, edit_file, grep in a loop) run twice in the same run: alone, and beside one session
// that sends the worst valid inputs in a loop (5 MiB of HTML through web_fetch from a loopback server, a
// pathological V4A patch, a fuzzy edit_file on a 20,000-line file, a 16 MiB JSON body, a zip of 65,535
// entries). Reported: the well-behaved p99 with the hostile session over without (goal ≤ 2×), the event
// loop's lag p99 in each phase (goal ≤ 50 ms), and each hostile call's status and time against its
// deadline (goal: answered within deadline + 1 s). The clients run in a worker thread of their own
// (bench/neighbours-clients.ts), so the lag measured here is the service's. The machine may be shared:
// read the ratio, not the ms. NEIGHBOURS_CPU_WEIGHT sets the sessions' runtime.cpuWeight (docs/runtime.md).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { startServer, fmt, percentile } from './lib.js';
import { NUMBERED_FILE, REPETITIVE_FILE } from '../test/helpers/hostile-inputs.js';
import type { PhaseInput, PhaseResult } from './neighbours-clients.js';
import { tempDir } from '../test/helpers/app.js';

const SESSIONS = 20;
const PHASE_MS = Number(process.env.NEIGHBOURS_PHASE_MS ?? 25_000);
const CPU_JOB_MS = 5_000;

const configDir = tempDir('toolgate-bench-config-');
const configFile = path.join(configDir, 'config.json');
writeFileSync(
  configFile,
  JSON.stringify({
    limits: { cpuJobMs: CPU_JOB_MS },
    network: { openRanges: ['127.0.0.1/32'] },
    ...(process.env.NEIGHBOURS_CPU_WEIGHT
      ? { runtime: { cpuWeight: Number(process.env.NEIGHBOURS_CPU_WEIGHT) } }
      : {}),
  }),
);
const server = await startServer({ TOOLGATE_CONFIG: configFile });

const source = Array.from({ length: 200 }, (_, i) => `export const value${i} = ${i};`).join('\n') + '\n';
const neighbours: Array<{ id: string; token: string }> = [];
for (let i = 0; i < SESSIONS; i++) {
  neighbours.push(
    await server.session({ profile: 'full', files: { 'src/a.ts': source, 'README.md': 'hi\n' } }),
  );
}
const hostile = await server.session({
  profile: 'full',
  network: { mode: 'open' },
  files: { 'repetitive.txt': REPETITIVE_FILE, 'numbered.txt': NUMBERED_FILE },
});

/** Runs the clients in a worker thread (bench/neighbours-clients.ts) while this loop's lag is measured. */
async function phase(withHostile: boolean) {
  const input: PhaseInput = {
    url: server.url,
    neighbours,
    hostile,
    withHostile,
    phaseMs: PHASE_MS,
    cpuJobMs: CPU_JOB_MS,
  };
  const clients = new URL('./neighbours-clients.ts', import.meta.url).href;
  const worker = new Worker(
    `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(clients)}); });`,
    { eval: true, workerData: input },
  );
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const result = await new Promise<PhaseResult>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  lag.disable();
  await worker.terminate();
  return { ...result, lagP99Ms: lag.percentile(99) / 1e6, lagMaxMs: lag.max / 1e6 };
}

// Warm-up: the CPU workers boot before the clocks start (seconds each from source on a busy machine).
await server.app.services.cpu.warm();

const alone = await phase(false);
const beside = await phase(true);

const p99 = (l: number[]) => percentile(l, 99);
console.log(
  `${SESSIONS} well-behaved sessions, ${PHASE_MS / 1000} s per phase, CPU job deadline ${CPU_JOB_MS} ms`,
);
console.log(
  `alone:        ${alone.latencies.length} calls, p50 ${fmt(percentile(alone.latencies, 50))} ms, p99 ${fmt(p99(alone.latencies))} ms, ` +
    `failures ${alone.failures}, loop lag p99 ${fmt(alone.lagP99Ms)} ms (max ${fmt(alone.lagMaxMs)})`,
);
console.log(
  `with hostile: ${beside.latencies.length} calls, p50 ${fmt(percentile(beside.latencies, 50))} ms, p99 ${fmt(p99(beside.latencies))} ms, ` +
    `failures ${beside.failures}, loop lag p99 ${fmt(beside.lagP99Ms)} ms (max ${fmt(beside.lagMaxMs)})`,
);
const ratio = p99(beside.latencies) / p99(alone.latencies);
console.log(`well-behaved p99 ratio (with / without): ${fmt(ratio)}× (goal ≤ 2×)`);
console.log(`event-loop lag p99 with the hostile session: ${fmt(beside.lagP99Ms)} ms (goal ≤ 50 ms)`);
let late = 0;
for (const r of beside.hostileResults) {
  const ok = r.ms <= r.deadlineMs + 1000;
  if (!ok) late++;
  console.log(
    `  hostile ${r.name.padEnd(34)} ${r.status} ${r.code.padEnd(18)} ${fmt(r.ms, 0).padStart(6)} ms (deadline ${r.deadlineMs} ms + 1 s: ${ok ? 'ok' : 'LATE'})`,
  );
}
console.log(
  `hostile calls answered within deadline + 1 s: ${beside.hostileResults.length - late}/${beside.hostileResults.length}`,
);

await server.close();
const { rmSync } = await import('node:fs');
rmSync(configDir, { recursive: true, force: true });
