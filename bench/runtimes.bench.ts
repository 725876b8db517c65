// The docker runtime backend against bwrap, in one run (`npm run bench -- runtimes`): a new session's
// first call (its runtime starts cold: container create + start + attach vs a bwrap namespace), read_file
// per call and `run_command true` per call on a running runtime (ratios docker/bwrap; goals ≤ 1.2 and
// ≤ 1.5), and an idle runtime's memory (the runtime's RSS, and for docker the container's cgroup usage).
// Docker is skipped, with the reason, where no engine or image is there. Loopback only; containers the
// bench made are removed at the end.
import Docker from 'dockerode';
import { ADMIN_KEY, callTool, fmt, percentile, startServer } from './lib.js';
import { instanceId } from '../src/runtime/backends/docker/index.js';
import { LABELS } from '../src/runtime/backends/docker/container-spec.js';

const COLD = Number(process.env.BENCH_COLD_STARTS ?? 8);
const READS = Number(process.env.BENCH_READS ?? 300);
const COMMANDS = Number(process.env.BENCH_COMMANDS ?? 40);
const MB = 1024 * 1024;
const docker = new Docker({ socketPath: '/var/run/docker.sock' });

const timed = async (times: number, work: () => Promise<unknown>): Promise<number[]> => {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const began = performance.now();
    await work();
    ms.push(performance.now() - began);
  }
  return ms;
};

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
    if (backend === 'docker') {
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
    await server.close().catch(() => undefined);
  }
}
if (results.bwrap && results.docker) {
  const { bwrap, docker: d } = results;
  console.log(
    `docker/bwrap: first call ${fmt(d.cold / bwrap.cold)}× (goal p50 ≤ 1000 ms cold: ${d.cold <= 1000 ? 'met' : 'NOT met'}), ` +
      `read_file ${fmt(d.read / bwrap.read)}× (goal ≤ 1.2: ${d.read / bwrap.read <= 1.2 ? 'met' : 'NOT met'}), ` +
      `run_command true ${fmt(d.command / bwrap.command)}× (goal ≤ 1.5: ${d.command / bwrap.command <= 1.5 ? 'met' : 'NOT met'})`,
  );
}
