// The session runtime's own costs, in one run: cold start (a session's first call starts its runtime;
// goal p50 ≤ 150 ms), an idle runtime's RSS (goal ≤ 60 MB), and the total RSS of many live sessions'
// runtimes (BENCH_SESSIONS, default 200). Baseline in the same run: starting `node -e 0`, the floor any
// Node-based runtime pays. Loopback only; bounded.
import { spawnSync } from 'node:child_process';
import { ADMIN_KEY, callTool, fmt, percentile, startServer } from './lib.js';

const COLD_STARTS = Number(process.env.BENCH_COLD_STARTS ?? 20);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 200);

const nodeStarts: number[] = [];
for (let i = 0; i < COLD_STARTS; i++) {
  const started = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  nodeStarts.push(performance.now() - started);
}

for (const backend of ['bwrap', 'none'] as const) {
  const server = await startServer({ TOOLGATE_SANDBOX: backend });
  if (server.app.services.runner.status.backend !== backend) {
    console.log(`[${backend}] not available here; skipped`);
    await server.close();
    continue;
  }
  const call = (session: { id: string; token: string }, tool: string, input: object) =>
    callTool(server.url, session, tool, input);
  const runtimeOf = async (id: string) => {
    const res = await fetch(`${server.url}/v1/sessions/${id}`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    return ((await res.json()) as { runtime: { rssBytes?: number } }).runtime;
  };

  // Cold starts: each new session's first workspace call starts its runtime.
  for (let i = 0; i < COLD_STARTS; i++) await call(await server.session(), 'list_directory', { path: '.' });
  const cold = server.app.services.runtimes.stats().coldStartsMs;
  const coldP50 = percentile(cold, 50);
  console.log(
    `[${backend}] runtime cold start      : p50 ${fmt(coldP50)} ms, p95 ${fmt(percentile(cold, 95))} ms ` +
      `(goal ≤ 150 ms; node -e 0 here: p50 ${fmt(percentile(nodeStarts, 50))} ms, ratio ${fmt(coldP50 / percentile(nodeStarts, 50))})`,
  );

  // Many live sessions: one call each, then every runtime's RSS.
  const sessions = [];
  for (let i = 0; i < SESSIONS; i++) sessions.push(await server.session());
  const began = performance.now();
  for (let i = 0; i < sessions.length; i += 20) {
    await Promise.all(sessions.slice(i, i + 20).map((s) => call(s, 'list_directory', { path: '.' })));
  }
  const startAllMs = performance.now() - began;
  await new Promise((resolve) => setTimeout(resolve, 500));
  const rss: number[] = [];
  for (const s of sessions) rss.push((await runtimeOf(s.id)).rssBytes ?? 0);
  const MB = 1024 * 1024;
  console.log(
    `[${backend}] idle runtime RSS        : p50 ${fmt(percentile(rss, 50) / MB, 1)} MB, max ${fmt(Math.max(...rss) / MB, 1)} MB (goal ≤ 60 MB)`,
  );
  console.log(
    `[${backend}] ${SESSIONS} live sessions      : runtimes' total RSS ${fmt(rss.reduce((a, b) => a + b, 0) / MB, 0)} MB, ` +
      `started in ${fmt(startAllMs / 1000, 1)} s; service RSS ${fmt(process.memoryUsage.rss() / MB, 0)} MB`,
  );
  await server.close();
}
