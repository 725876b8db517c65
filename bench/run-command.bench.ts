// run_command `true` latency through the API (auth, validation, pipeline, job log, audit) vs spawning the
// same sandboxed command directly with the same CommandRunner, in the same run, for both backends.
// Sequential (one request at a time) so the numbers are per-command latency, not throughput.
import { effectiveLimits } from '../src/sandbox/runner/limits.js';
import { fmt, load, percentile, startServer } from './lib.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);

async function direct(server: Awaited<ReturnType<typeof startServer>>, root: string, seconds: number) {
  const { runner } = server.app.services;
  const limits = effectiveLimits(120_000);
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const started = performance.now();
    const child = runner.spawn({ command: 'true', workspaceRoot: root, cwd: '.', env: {}, limits });
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
  const root = server.app.services.workspaces.dirFor(session.id);
  const request = {
    url: `${server.url}/v1/sessions/${session.id}/tools/run_command`,
    method: 'POST' as const,
    headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ command: 'true' }),
    connections: 1,
  };
  // Warm up both paths, then measure one after the other.
  await direct(server, root, 1);
  await load({ ...request, duration: 1 });
  const directLatencies = await direct(server, root, DURATION);
  const api = await load({ ...request, duration: DURATION });
  const directP50 = percentile(directLatencies, 50);
  const rate = directLatencies.length / DURATION;
  console.log(`[${backend}] direct runner.spawn   : p50 ${fmt(directP50)} ms, ${fmt(rate, 0)} commands/s`);
  console.log(
    `[${backend}] POST run_command (API): p50 ${fmt(api.p50Ms)} ms, ${fmt(api.requestsPerSec, 0)} req/s`,
  );
  console.log(
    `[${backend}] ratio API/direct p50   : ${fmt(api.p50Ms / directP50)} (overhead ${fmt(api.p50Ms - directP50)} ms)`,
  );
  if (api.non2xx || api.errors)
    console.log(`[${backend}] non-2xx ${api.non2xx}, errors ${api.errors}: not valid`);
  await server.close();
}
