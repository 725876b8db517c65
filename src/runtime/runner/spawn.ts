// Starts one command as the leader of its own process group (execa, no buffering) and kills the whole
// group on demand. With bwrap the leader is bwrap itself: killing it tears down the pid namespace, so
// daemons the command started die too.
import { execa } from 'execa';
import type { CommandCgroup } from './cgroup.js';
import type { ExitInfo, SandboxedProcess } from './types.js';

/** How long a killed command's output may take to drain before the streams are cut. */
const KILL_GRACE_MS = 500;

export interface GroupSpawnOptions {
  cwd: string;
  env: Record<string, string>;
  /** Joined before the command starts (by a tiny shell that then execs it), so no child escapes it. */
  cgroup?: CommandCgroup;
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

export function spawnGroup(file: string, args: string[], options: GroupSpawnOptions): SandboxedProcess {
  const { cgroup } = options;
  const [command, commandArgs] = cgroup
    ? ['/bin/sh', ['-c', 'echo $$ > "$0" && exec "$@"', cgroup.procsFile, file, ...args]]
    : [file, args];
  const subprocess = execa(command, commandArgs, {
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
    buffer: false,
    reject: false,
    stripFinalNewline: false,
    // Own process group, so one kill reaches every process the command started (unless it escaped with
    // setsid, which only the bwrap backend's pid namespace prevents).
    detached: true,
    cleanup: false,
  });
  const pid = subprocess.pid;
  // When the command itself exits, whatever it left running in its group goes too: a finished command
  // leaves nothing behind (bwrap does the same for its whole namespace).
  subprocess.once('exit', () => killGroup(pid));
  // A command that exits without reading its stdin makes our writes fail with EPIPE; that is not an error.
  subprocess.stdin.on('error', () => undefined);

  let killedAt: (() => void) | undefined;
  const killed = new Promise<void>((resolve) => (killedAt = resolve));
  const finished = subprocess.then((result) => {
    if (result.exitCode === undefined && result.signal === undefined) {
      throw new Error(`could not start ${file}: ${result.shortMessage}`);
    }
    return { exitCode: result.exitCode ?? null, signal: result.signal ?? null };
  });
  const leaderExit = new Promise<ExitInfo>((resolve) =>
    subprocess.once('exit', (code, signal) => resolve({ exitCode: code, signal })),
  );
  // Normally we wait until the output is drained. After a kill, tearing down a namespace full of
  // processes (a fork bomb) can take seconds; the caller gets its answer after a short grace instead.
  const exited: Promise<ExitInfo> = Promise.race([leaderExit, finished]).then(async (exit) => {
    const graceOver = killed.then(
      () => new Promise<'grace'>((r) => setTimeout(() => r('grace'), KILL_GRACE_MS)),
    );
    if ((await Promise.race([finished, graceOver])) === 'grace') {
      subprocess.stdout.destroy();
      subprocess.stderr.destroy();
    }
    cgroup?.remove();
    return exit;
  });
  return {
    stdout: subprocess.stdout,
    stderr: subprocess.stderr,
    stdin: subprocess.stdin,
    exited,
    kill() {
      killGroup(pid);
      cgroup?.killAll();
      killedAt?.();
    },
  };
}
