// A tool folder call (examples/tools/count_words, Python) through the API — auth, validation, pipeline,
// audit, the session runtime — vs the same script run directly in the same session's sandbox through the
// runtime (same command line, same stdin, same limits) in the same run. Both backends, sequential, so the
// numbers are per-call latency. The goal: API p50 ≤ 1.3× the direct run.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASE_ENV } from '../src/runtime/runner/runner.js';
import { effectiveLimits } from '../src/runtime/runner/limits.js';
import { fmt, load, percentile, startServer } from './lib.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const TOOLS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../examples/tools');
const INPUT = JSON.stringify({ path: 'README.md' });

async function direct(server: Awaited<ReturnType<typeof startServer>>, sessionId: string, seconds: number) {
  const runtime = server.app.services.runtimes.for((await server.app.services.sessions.get(sessionId))!);
  const limits = effectiveLimits(10_000);
  const script = path.join(TOOLS, 'count_words', 'main.py');
  const command = `exec 'python3' '${script}'`;
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const started = performance.now();
    const child = await runtime.spawn({ command, cwd: '.', env: BASE_ENV, limits });
    child.stdin.end(INPUT);
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.resume();
    const exit = await child.exited;
    if (exit.exitCode !== 0) throw new Error(`direct run failed: ${JSON.stringify(exit)}`);
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    latencies.push(performance.now() - started);
  }
  return latencies;
}

for (const backend of ['bwrap', 'none'] as const) {
  const server = await startServer({ TOOLGATE_SANDBOX: backend, TOOLGATE_TOOLS_DIR: TOOLS });
  const status = server.app.services.runner.status;
  if (status.backend !== backend) {
    console.log(`${backend}: not available here (${status.detail}); skipped`);
    await server.close();
    continue;
  }
  const session = await server.session({ profile: 'read-only', files: { 'README.md': '# demo\nwords\n' } });
  const request = {
    url: `${server.url}/v1/sessions/${session.id}/tools/count_words`,
    method: 'POST' as const,
    headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
    body: INPUT,
    connections: 1,
  };
  await direct(server, session.id, 1);
  await load({ ...request, duration: 1 });
  const directP50 = percentile(await direct(server, session.id, DURATION), 50);
  const api = await load({ ...request, duration: DURATION });
  if (api.non2xx > 0 || api.errors > 0)
    throw new Error(`${api.non2xx} non-2xx answers, ${api.errors} errors`);
  console.log(`[${backend}] count_words.py run directly in the sandbox: p50 ${fmt(directP50)} ms`);
  console.log(`[${backend}] POST count_words (folder tool, API)      : p50 ${fmt(api.p50Ms)} ms`);
  console.log(
    `[${backend}] ratio API/direct p50 ${fmt(api.p50Ms / directP50)} (goal ≤ 1.3; overhead ${fmt(api.p50Ms - directP50)} ms)`,
  );
  await server.close();
}
