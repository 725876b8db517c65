// run_command `true` latency through the API (auth, validation, pipeline, job log, audit, the session
// runtime) vs two baselines in the same run: spawning the same command through the session runtime
// directly, and spawning /bin/true from this process with child_process (no sandbox at all). Both
// backends. Sequential (one request at a time) so the numbers are per-command latency, not throughput.
// The goal: p50 ≤ 10 ms through the API (31 ms before the session runtime).
import { spawn } from 'node:child_process';
import { BASE_ENV } from '../src/runtime/runner/runner.js';
import { effectiveLimits } from '../src/runtime/runner/limits.js';
import { fmt, load, percentile, startServer } from './lib.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);

async function bare(seconds: number) {
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      const child = spawn('/bin/true', [], { stdio: 'ignore' });
      child.once('error', reject);
      child.once('exit', () => resolve());
    });
    latencies.push(performance.now() - started);
  }
  return latencies;
}

async function direct(server: Awaited<ReturnType<typeof startServer>>, sessionId: string, seconds: number) {
  const runtime = server.app.services.runtimes.for((await server.app.services.sessions.get(sessionId))!);
  const limits = effectiveLimits(120_000);
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const started = performance.now();
    const child = await runtime.spawn({ command: 'true', cwd: '.', env: BASE_ENV, limits });
    child.stdin.end();
    child.stdout.resume();
    child.stderr.resume();
    const exit = await child.exited;
    if (exit.exitCode !== 0) throw new Error(`direct spawn failed: ${JSON.stringify(exit)}`);
    latencies.push(performance.now() - started);
  }
  return latencies;
}

for (const backend of ['bwrap', 'none'] as const) {
  const server = await startServer({ TOOLGATE_SANDBOX: backend });
  const status = server.app.services.runner.status;
  if (status.backend !== backend) {
    console.log(`${backend}: not available here (${status.detail}); skipped`);
    await server.close();
    continue;
  }
  const session = await server.session({ profile: 'execute' });
  const request = {
    url: `${server.url}/v1/sessions/${session.id}/tools/run_command`,
    method: 'POST' as const,
    headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ command: 'true' }),
    connections: 1,
  };
  // Warm up both paths, then measure one after the other.
  await direct(server, session.id, 1);
  await load({ ...request, duration: 1 });
  const bareP50 = percentile(await bare(DURATION), 50);
  const directLatencies = await direct(server, session.id, DURATION);
  const api = await load({ ...request, duration: DURATION });
  const directP50 = percentile(directLatencies, 50);
  const rate = directLatencies.length / DURATION;
  console.log(`[${backend}] bare spawn /bin/true   : p50 ${fmt(bareP50)} ms (this process, no sandbox)`);
  console.log(`[${backend}] runtime spawn          : p50 ${fmt(directP50)} ms, ${fmt(rate, 0)} commands/s`);
  console.log(
    `[${backend}] POST run_command (API): p50 ${fmt(api.p50Ms)} ms, ${fmt(api.requestsPerSec, 0)} req/s`,
  );
  console.log(
    `[${backend}] ratio API/direct p50   : ${fmt(api.p50Ms / directP50)} (overhead ${fmt(api.p50Ms - directP50)} ms)`,
  );
  console.log(
    `[${backend}] run_command true p50   : ${fmt(api.p50Ms)} ms (goal ≤ 10 ms; 31 ms before the runtime), ` +
      `${fmt(api.p50Ms / bareP50)}× a bare spawn`,
  );
  if (api.non2xx || api.errors)
    console.log(`[${backend}] non-2xx ${api.non2xx}, errors ${api.errors}: not valid`);
  await server.close();
}
