// A command in an open persistent shell (shell_exec) vs run_command, through the API, `true` each time:
// the per-call cost p50, with run_command as the baseline in the same run (goal: ≤ 1.2×). Then the
// memory of an open shell (bash's RSS and PSS, read from /proc on the unisolated backend, where the
// shell's pid is a host pid; bwrap runs the same bash). Sequential, one request at a time.
import { readFileSync } from 'node:fs';
import { callTool, fmt, load, startServer } from './lib.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const SHELLS = 4;

const kib = (text: string, field: string) =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);

for (const backend of ['bwrap', 'none'] as const) {
  const server = await startServer({
    TOOLGATE_SANDBOX: backend,
  });
  if (server.app.services.runner.status.backend !== backend) {
    console.log(`${backend}: not available here; skipped`);
    await server.close();
    continue;
  }
  const session = await server.session({ profile: 'execute' });
  const request = (tool: string, body: unknown) => ({
    url: `${server.url}/v1/sessions/${session.id}/tools/${tool}`,
    method: 'POST' as const,
    headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    connections: 1,
  });
  const run = request('run_command', { command: 'true' });
  const shell = request('shell_exec', { shell: 'main', command: 'true' });
  // `true` is a builtin in the open shell: /bin/true makes it fork and exec as run_command does.
  const external = request('shell_exec', { shell: 'main', command: '/bin/true' });
  // Warm up both (this opens the shell), then measure one after the other, twice, alternating.
  await load({ ...run, duration: 1 });
  await load({ ...shell, duration: 1 });
  const runs = [await load({ ...run, duration: DURATION })];
  const shells = [await load({ ...shell, duration: DURATION })];
  runs.push(await load({ ...run, duration: DURATION }));
  shells.push(await load({ ...shell, duration: DURATION }));
  const runP50 = Math.min(...runs.map((r) => r.p50Ms));
  const shellP50 = Math.min(...shells.map((r) => r.p50Ms));
  const externalP50 = (await load({ ...external, duration: DURATION })).p50Ms;
  const bad = [...runs, ...shells].some((r) => r.non2xx || r.errors);
  console.log(`[${backend}] run_command true  : p50 ${fmt(runP50)} ms (baseline)`);
  console.log(`[${backend}] shell_exec true   : p50 ${fmt(shellP50)} ms`);
  console.log(
    `[${backend}] shell_exec /bin/true: p50 ${fmt(externalP50)} ms; ratio shell/run ${fmt(shellP50 / runP50)} builtin, ` +
      `${fmt(externalP50 / runP50)} /bin/true (goal ≤ 1.2)${bad ? ' — non-2xx seen: not valid' : ''}`,
  );

  if (backend === 'none') {
    for (let i = 1; i < SHELLS; i++) await callTool(server.url, session, 'shell_open', { shell: `s${i}` });
    const listed = await callTool(server.url, session, 'shell_list', {});
    const pids = (listed.data.shells as Array<{ pid: number }>).map((s) => s.pid);
    const rss: number[] = [];
    const pss: number[] = [];
    for (const pid of pids) {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      rss.push(kib(rollup, 'Rss'));
      pss.push(kib(rollup, 'Pss'));
    }
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    console.log(
      `[${backend}] memory per open shell (${pids.length} open): RSS ${fmt(mean(rss) / 1024)} MiB, ` +
        `PSS ${fmt(mean(pss) / 1024)} MiB (pages shared between the shells counted once)`,
    );
  }
  await server.close();
}
