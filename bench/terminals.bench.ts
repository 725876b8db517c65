// Terminals and kernels through the API, each against a baseline in the same run (bwrap backend):
// - first PTY output: exec_command `echo ready` answers when the program printed and exited, an upper
//   bound on the time to its first output (goal ≤ 50 ms), against run_command `echo ready`;
// - a warm kernel cell `1+1` p50 (goal ≤ 20 ms), against run_command `true`;
// - kernel cold start (goal ≤ 2 s): the startedMs of a first cell and of restarts;
// - memory (RSS) of an idle terminal (script + bash) and of a kernel (driver + ipykernel).
import { callTool, fmt, percentile, startServer } from './lib.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);

const server = await startServer({ TOOLGATE_SANDBOX: process.env.BENCH_SANDBOX ?? 'bwrap' });
const session = await server.session({ profile: 'execute' });
const call = (tool: string, input: unknown) => callTool(server.url, session, tool, input);

async function timed(rounds: number, once: () => Promise<unknown>): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    await once();
    latencies.push(performance.now() - started);
  }
  return latencies;
}

/** RSS in KiB of the processes `selector` names, measured by ps inside the same runtime. */
async function rssKiB(selector: string): Promise<number> {
  const { data } = await call('run_command', {
    command: `ps -o rss= ${selector} | awk '{s+=$1} END {print s}'`,
  });
  return Number(String(data.stdout).trim());
}

try {
  await call('run_command', { command: 'true' });
  // Warm-up of both paths.
  await timed(3, () => call('exec_command', { cmd: 'echo ready', yield_time_ms: 5000 }));
  await timed(3, () => call('run_command', { command: 'echo ready' }));
  const pty = await timed(ROUNDS, async () => {
    const { data } = await call('exec_command', { cmd: 'echo ready', yield_time_ms: 5000 });
    if (!String(data.output).includes('ready')) throw new Error(`no output: ${JSON.stringify(data)}`);
  });
  const plain = await timed(ROUNDS, () => call('run_command', { command: 'echo ready' }));
  const ptyP50 = percentile(pty, 50);
  const plainP50 = percentile(plain, 50);
  console.log(`exec_command echo (first output, upper bound): p50 ${fmt(ptyP50)} ms (goal ≤ 50 ms)`);
  console.log(`run_command echo (baseline)                  : p50 ${fmt(plainP50)} ms`);
  console.log(`ratio terminal/run_command                   : ${fmt(ptyP50 / plainP50)}`);

  const cold = await call('run_code', { code: '1+1' });
  const starts = [Number(cold.data.startedMs)];
  for (let i = 0; i < 2; i++)
    starts.push(Number((await call('kernel_restart', { kernel: 'default' })).data.startedMs));
  await timed(5, () => call('run_code', { code: '1+1' }));
  const cells = await timed(ROUNDS, async () => {
    const { data } = await call('run_code', { code: '1+1' });
    if (data.status !== 'ok') throw new Error(JSON.stringify(data));
  });
  const trueP50 = percentile(await timed(ROUNDS, () => call('run_command', { command: 'true' })), 50);
  const cellP50 = percentile(cells, 50);
  console.log(
    `kernel cold start                            : ${starts.map((ms) => `${ms} ms`).join(', ')} (goal ≤ 2 s)`,
  );
  console.log(`run_code 1+1 warm                            : p50 ${fmt(cellP50)} ms (goal ≤ 20 ms)`);
  console.log(`run_command true (baseline)                  : p50 ${fmt(trueP50)} ms`);
  console.log(`ratio cell/run_command                       : ${fmt(cellP50 / trueP50)}`);

  const terminal = await call('exec_command', { cmd: 'bash --norc', yield_time_ms: 1000 });
  const programPid = Number(terminal.data.pid);
  const scriptKiB = await rssKiB(`-p $(ps -o ppid= -p ${programPid})`);
  const programKiB = await rssKiB(`--sid ${programPid}`);
  console.log(
    `memory of an idle terminal (script + bash)   : ${fmt((scriptKiB + programKiB) / 1024, 1)} MiB RSS`,
  );
  const kernels = await call('kernel_list', {});
  const kernelPid = Number((kernels.data.kernels as Array<{ pid: number }>)[0].pid);
  const kernelKiB = await rssKiB(`-p ${kernelPid}`);
  const driverKiB = await rssKiB(`-p $(ps -o ppid= -p ${kernelPid})`);
  console.log(`memory of a kernel (ipykernel)               : ${fmt(kernelKiB / 1024, 1)} MiB RSS`);
  console.log(`  + its jupyter_client driver                : ${fmt(driverKiB / 1024, 1)} MiB RSS`);
} finally {
  await server.close();
}
