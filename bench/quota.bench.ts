// What the workspace quota costs, on a large tree (BENCH_QUOTA_FILES, default 20,000 files in 200
// folders), in one run: the same sequential calls against a server with a quota and one without (the
// baseline). Usage is counted incrementally: a scan gives the numbers, tool writes adjust them, and a
// finished command marks them stale (it wrote behind our back) and, under a quota, starts a rescan in
// the background. A command starts with the last numbers (its watch rescans at once when they are
// stale); a write that grows the workspace waits for fresh ones. So the scan is paid by a growing write
// right after a command, and shows in the last line. Loopback only; bounded.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { callTool, fmt, percentile, startServer, type BenchServer } from './lib.js';

const FILES = Number(process.env.BENCH_QUOTA_FILES ?? 20_000);
const ROUNDS = Number(process.env.BENCH_QUOTA_ROUNDS ?? 40);
const FOLDERS = 200;

const call = (server: BenchServer, session: { id: string; token: string }, tool: string, input: object) =>
  callTool(server.url, session, tool, input);

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

async function measure(server: BenchServer) {
  const session = await server.session({ profile: 'full' });
  const perFolder = Math.ceil(FILES / FOLDERS);
  await call(server, session, 'run_command', {
    command: `for i in $(seq 1 ${FOLDERS}); do mkdir -p t/$i && (cd t/$i && touch $(seq 1 ${perFolder})); done`,
    timeout_ms: 300_000,
  });
  const runtime = server.app.services.runtimes.get(session.id)!;
  const writes: number[] = [];
  const commands: number[] = [];
  const writesAfterCommand: number[] = [];
  const scans: number[] = [];
  // Each kind of call in a run of its own, so one kind's background work is not billed to another.
  // New files each time: only a write that grows the workspace is checked against the quota.
  for (let i = 0; i < ROUNDS; i++) {
    writes.push(await timed(() => call(server, session, 'write_file', { path: `w${i}.txt`, content: 'w' })));
  }
  for (let i = 0; i < ROUNDS; i++) {
    commands.push(await timed(() => call(server, session, 'run_command', { command: 'true' })));
  }
  for (let i = 0; i < ROUNDS; i++) {
    await call(server, session, 'run_command', { command: 'true' });
    writesAfterCommand.push(
      await timed(() => call(server, session, 'write_file', { path: `c${i}.txt`, content: 'c' })),
    );
  }
  // The scan itself: a command marks the numbers stale; without a quota nothing rescans until asked,
  // so the usage read right after it walks the whole tree.
  for (let i = 0; i < ROUNDS; i++) {
    await call(server, session, 'run_command', { command: 'true' });
    scans.push(await timed(() => runtime.call('usage', {})));
  }
  return { writes, commands, writesAfterCommand, scans };
}

const config = path.join(tmpdir(), `toolgate-bench-quota-${process.pid}.json`);
writeFileSync(config, JSON.stringify({ limits: { workspaceMaxBytes: 1024 * 1024 * 1024 } }));
const results: Record<string, Awaited<ReturnType<typeof measure>>> = {};
for (const [name, env] of [
  ['no quota', {}],
  ['quota', { TOOLGATE_CONFIG: config }],
] as const) {
  const server = await startServer(env);
  results[name] = await measure(server);
  await server.close();
}
const p50 = (values: number[]) => percentile(values, 50);
const base = results['no quota']!;
const quota = results.quota!;
console.log(`${FILES} files, ${ROUNDS} rounds, sequential, p50 in ms (quota vs no quota, same run)`);
for (const [label, key] of [
  ['write_file                ', 'writes'],
  ['run_command true          ', 'commands'],
  ['write_file after a command', 'writesAfterCommand'],
] as const) {
  console.log(
    `${label}: ${fmt(p50(quota[key]))} vs ${fmt(p50(base[key]))} ms, ratio ${fmt(p50(quota[key]) / p50(base[key]))}`,
  );
}
console.log(
  `full usage scan of the tree (usage read right after a command, no quota): p50 ${fmt(p50(base.scans))} ms; ` +
    `with a quota the rescan already runs in the background when the command ends: ${fmt(p50(quota.scans))} ms`,
);
