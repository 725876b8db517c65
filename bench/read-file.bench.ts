// read_file through toolgate (auth, validation, the session runtime's confined read, audit + stats) vs
// a bare Fastify route doing the same fs read, each server in a process of its own and autocannon in
// this one, at 10 and at 50 connections. Also toolgate with every policy on (permissions, a rate limit
// that never binds). Goal (the per-call cost issue): toolgate ≥ 0.8× the bare route at both.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startChildProcess, startToolgateProcess, treeCpuSeconds } from './child.js';
import { fmt, load, type LoadResult } from './lib.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '10,50').split(',').map(Number);
const content =
  Array.from({ length: 40 }, (_, i) => `line ${i + 1}: const value${i} = ${i};`).join('\n') + '\n';

const bareDir = mkdtempSync(path.join(tmpdir(), 'toolgate-bench-bare-'));
writeFileSync(path.join(bareDir, 'small.ts'), content);
const bare = await startChildProcess('bench/servers/bare-read.ts', { BENCH_READ_DIR: bareDir }, '/healthz');
const toolgate = await startToolgateProcess();
const session = await toolgate.session({ profile: 'read-only', files: { 'src/small.ts': content } });
const limited = await toolgate.session({
  profile: 'read-only',
  files: { 'src/small.ts': content },
  rateLimits: {
    '*': { limit: 10_000_000, windowSeconds: 60 },
    filesystem: { limit: 10_000_000, windowSeconds: 60 },
  },
});

const body = JSON.stringify({ path: 'src/small.ts' });
const toolRequest = (s: { id: string; token: string }) => ({
  pid: toolgate.proc.pid!,
  url: `${toolgate.url}/v1/sessions/${s.id}/tools/read_file`,
  method: 'POST' as const,
  headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
  body,
});
const sides = {
  bare: {
    pid: bare.proc.pid!,
    url: `${bare.url}/read`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json' },
    body,
  },
  toolgate: toolRequest(session),
  policy: toolRequest(limited),
};
type Side = keyof typeof sides;

const median = (results: LoadResult[]): LoadResult =>
  [...results].sort((x, y) => x.requestsPerSec - y.requestsPerSec)[Math.floor(results.length / 2)];
const medianOf = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];

/** One round, and the server's CPU time per completed request (µs) in it: service plus runtimes. */
async function round(side: Side, connections: number): Promise<LoadResult & { cpuUs: number }> {
  const { pid, ...request } = sides[side];
  const before = treeCpuSeconds(pid);
  const result = await load({ ...request, connections, duration: DURATION });
  return { ...result, cpuUs: ((treeCpuSeconds(pid) - before) * 1e6) / Math.max(1, result.total) };
}

let invalid = 0;
for (const connections of CONNECTIONS) {
  // Warm up (JIT, SQLite page cache), then alternate short rounds and take each side's median, so a
  // burst of noise on this shared machine cannot land on one side only.
  for (const side of Object.keys(sides) as Side[]) {
    const { pid: _pid, ...request } = sides[side];
    await load({ ...request, connections, duration: 1 });
  }
  const rounds: Record<Side, Array<LoadResult & { cpuUs: number }>> = { bare: [], toolgate: [], policy: [] };
  for (let i = 0; i < ROUNDS; i++) {
    for (const side of Object.keys(sides) as Side[]) rounds[side].push(await round(side, connections));
  }
  const cpu = {
    bare: medianOf(rounds.bare.map((r) => r.cpuUs)),
    toolgate: medianOf(rounds.toolgate.map((r) => r.cpuUs)),
    policy: medianOf(rounds.policy.map((r) => r.cpuUs)),
  };
  const result = {
    bare: median(rounds.bare),
    toolgate: median(rounds.toolgate),
    policy: median(rounds.policy),
  };
  console.log(`\n${connections} connections: median of ${ROUNDS} alternating rounds of ${DURATION} s`);
  const row = (label: string, r: LoadResult, cpuUs: number) =>
    console.log(
      `${label.padEnd(22)}: ${fmt(r.requestsPerSec, 0)} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, ` +
        `server CPU ${fmt(cpuUs, 0)} µs per call`,
    );
  row('bare fastify fs read', result.bare, cpu.bare);
  row('toolgate read_file', result.toolgate, cpu.toolgate);
  row('toolgate + policies', result.policy, cpu.policy);
  console.log(
    `ratio toolgate/bare  : ${fmt(result.toolgate.requestsPerSec / result.bare.requestsPerSec)} (goal ≥ 0.8)`,
  );
  console.log(`ratio policies/bare  : ${fmt(result.policy.requestsPerSec / result.bare.requestsPerSec)}`);
  // The same comparison as CPU cost per call (bare / toolgate): what the ratio would be on a machine with
  // nothing else running and the load generator elsewhere; stable when the throughput ratio is noisy.
  console.log(`CPU per call bare/toolgate: ${fmt(cpu.bare / cpu.toolgate)}`);
  invalid += Object.values(result).reduce((n, r) => n + r.non2xx + r.errors, 0);
}
if (invalid) console.log(`non-2xx responses or errors: ${invalid} (the ratios are not valid)`);

await bare.close();
await toolgate.close();
rmSync(bareDir, { recursive: true, force: true });
