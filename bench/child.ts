// Servers in processes of their own, for benches that compare toolgate with a baseline: the load
// generator (autocannon, or a sequential client) stays in the bench process, so neither side shares an
// event loop with the load it is measured under. Loopback only.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/ops/child-server.js';
import { ADMIN_KEY, onInterrupt } from './lib.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface ChildProcessServer {
  url: string;
  proc: ChildProcess;
  close(): Promise<void>;
}

/** Spawns `node --import tsx <script>` with PORT set and waits until `probePath` answers. */
export async function startChildProcess(
  script: string,
  env: Record<string, string>,
  probePath: string,
  onClose?: () => void,
): Promise<ChildProcessServer> {
  const port = await freePort();
  // BENCH_CHILD_NODE_ARGS: more Node flags for the server (`--cpu-prof --cpu-prof-dir=…` to profile it;
  // NODE_OPTIONS refuses --cpu-prof).
  const extra = (process.env.BENCH_CHILD_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const proc = spawn(process.execPath, [...extra, '--import', 'tsx', script], {
    cwd: REPO_ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (
    !(await fetch(`${url}${probePath}`).then(
      (res) => res.ok,
      () => false,
    ))
  ) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`${script} did not start`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    proc,
    async close() {
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill('SIGTERM');
      await exited;
      onClose?.();
    },
  };
}

/** toolgate itself (src/server.ts, the `npm start` entry) on a fresh data dir. */
export async function startToolgateProcess(env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'toolgate-bench-'));
  const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
  const running: { proc?: ChildProcess } = {};
  // Interrupted: the server process would outlive the bench, and its data dir with it.
  const unregister = onInterrupt(() => {
    running.proc?.kill('SIGKILL');
    removeDataDir();
  });
  const server = await startChildProcess(
    'src/server.ts',
    { TOOLGATE_DATA_DIR: dataDir, TOOLGATE_API_KEY: ADMIN_KEY, ...env },
    '/healthz',
    () => {
      unregister();
      removeDataDir();
    },
  );
  running.proc = server.proc;
  return {
    ...server,
    async session(body: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
      const res = await fetch(`${server.url}/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status !== 201) throw new Error(`session: ${res.status} ${await res.text()}`);
      return (await res.json()) as { id: string; token: string };
    },
  };
}

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on Linux
// Without schedstat (a kernel built without it), the stat file's 10 ms ticks are what there is.
const HAS_SCHEDSTAT = existsSync('/proc/self/schedstat');

/** utime + stime of a process from its stat file, in seconds (10 ms steps). */
function statCpuSeconds(pid: number): number {
  // Fields after the command name (which may hold spaces): utime is the 14th field, stime the 15th.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * CPU seconds used so far by a process and every live descendant (a toolgate server and its session
 * runtimes). Per call, it says what a request costs even when the machine is busy with other work,
 * where throughput alone would measure the neighbours. One pass over each process's threads reads
 * both their children and their schedstat (time on a CPU in nanoseconds; the stat file's 10 ms ticks
 * are too coarse for a round of sub-millisecond calls). A thread that exited is no longer counted: a
 * Node process keeps its threads (libuv's pool, V8's helpers) for its life.
 */
export function treeCpuSeconds(pid: number): number {
  let seconds = 0;
  const pending = [pid];
  while (pending.length > 0) {
    const current = pending.pop()!;
    try {
      const tids = readdirSync(`/proc/${current}/task`);
      if (!HAS_SCHEDSTAT) seconds += statCpuSeconds(current);
      for (const tid of tids) {
        const task = `/proc/${current}/task/${tid}`;
        try {
          if (HAS_SCHEDSTAT) seconds += Number(readFileSync(`${task}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
          const children = readFileSync(`${task}/children`, 'utf8').trim();
          if (children) pending.push(...children.split(/\s+/).map(Number));
        } catch {
          // the thread exited meanwhile
        }
      }
    } catch {
      // the process exited meanwhile
    }
  }
  return seconds;
}
