// Starts one command as the leader of its own process group (execa, no buffering) and kills the whole
// group on demand. With bwrap the leader is bwrap itself: killing it tears down the pid namespace, so
// daemons the command started die too.
import { execa } from 'execa';
import type { ExitInfo, SandboxedProcess } from './types.js';

export interface GroupSpawnOptions {
  cwd: string;
  env: Record<string, string>;
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
  const subprocess = execa(file, args, {
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
  const exited: Promise<ExitInfo> = subprocess.then((result) => {
    if (result.exitCode === undefined && result.signal === undefined) {
      throw new Error(`could not start ${file}: ${result.shortMessage}`);
    }
    return { exitCode: result.exitCode ?? null, signal: result.signal ?? null };
  });
  return {
    stdout: subprocess.stdout,
    stderr: subprocess.stderr,
    stdin: subprocess.stdin,
    exited,
    kill: () => killGroup(pid),
  };
}
