// One program on a pseudo-terminal, without a native module: util-linux `script` allocates the PTY
// (openpty, setsid, the slave as the controlling terminal of the program) and relays bytes between its
// pipes and the master. The wrapper shell it starts reports the program's pid on fd 3 (its slave device
// is read from /proc) before it sets the window size and execs the command, so the runtime can signal
// the program's session and resize its terminal. Resizing is `stty -F <slave> rows R cols C`: stty opens the slave and
// issues TIOCSWINSZ on it, which sets the size of the PTY pair and sends SIGWINCH to its foreground group.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { toolgateError } from '../../../lib/errors.js';
import type { ResourceLimits } from '../../runner/types.js';

export interface PtySpawn {
  readonly command: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly rows: number;
  readonly cols: number;
  readonly limits: ResourceLimits;
  /** bash, for `ulimit` and the wrapper; the sandbox's shell. */
  readonly shell: string;
  /** RLIMIT_NPROC only means something inside a user namespace (see runner/limits.ts). */
  readonly processLimit: boolean;
}

export interface PtyProcess {
  readonly child: ChildProcess;
  /** The program's pid: leader of its own session and process group on the terminal. */
  readonly pid: Promise<number>;
  /** The slave device (/dev/pts/N). */
  readonly device: Promise<string>;
  write(bytes: Uint8Array): void;
  resize(rows: number, cols: number): Promise<void>;
  /** Hangs up the program's session, then kills what is left. */
  kill(): void;
}

let scriptPath: string | null | undefined;
/** Where `script` is (searched once); null when this runtime has none. */
function findScript(): string | null {
  if (scriptPath !== undefined) return scriptPath;
  const found = spawnSync('/bin/sh', ['-c', 'command -v script'], { encoding: 'utf8' });
  scriptPath = found.status === 0 && found.stdout.trim() ? found.stdout.trim() : null;
  return scriptPath;
}

/** The wrapper `script` runs: limits, report pid and device, size the window, then the command. */
function wrapper(request: PtySpawn): string {
  const { limits } = request;
  const ulimits = [
    `-v ${Math.floor(limits.memoryBytes / 1024)}`,
    `-f ${Math.floor(limits.fileSizeBytes / 1024)}`,
    `-n ${limits.openFiles}`,
    ...(request.processLimit ? [`-u ${limits.maxProcesses}`] : []),
  ].join(' ');
  // The command arrives in __TG_TERMINAL_COMMAND and leaves no trace in the program's environment.
  return (
    `ulimit ${ulimits} || exit 126; ` +
    `printf '%s\\n' "$$" >&3; exec 3>&-; ` +
    `stty rows ${request.rows} cols ${request.cols} 2>/dev/null; ` +
    `__tg_c=$__TG_TERMINAL_COMMAND; unset __TG_TERMINAL_COMMAND; exec ${request.shell} -c "$__tg_c"`
  );
}

/** The terminal device a process has as its stdin, or '' once it is gone. */
function slaveOf(pid: number): string {
  try {
    const device = readlinkSync(`/proc/${pid}/fd/0`);
    return device.startsWith('/dev/') ? device : '';
  } catch {
    return '';
  }
}

export function spawnPty(request: PtySpawn): PtyProcess {
  const script = findScript();
  if (!script) {
    throw toolgateError('TOOL_FAILED', 'Terminals need util-linux `script` in the runtime, and it has none', {
      suggestion: 'Use an image with util-linux (every toolgate runtime image has it), or run_command.',
    });
  }
  const child = spawn(script, ['-q', '-f', '-e', '-c', wrapper(request), '/dev/null'], {
    cwd: request.cwd,
    env: {
      TERM: 'xterm-256color',
      ...request.env,
      SHELL: request.shell,
      __TG_TERMINAL_COMMAND: request.command,
    },
    // Its own process group, so a kill reaches `script` and nothing of the runtime.
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
  });
  child.stdin!.on('error', () => undefined);
  child.once('error', () => undefined);
  const report = child.stdio[3] as NodeJS.ReadableStream;
  const reported = new Promise<[number, string]>((resolve, reject) => {
    let text = '';
    report.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const line = /^(\d+)\n/.exec(text);
      // The slave device is the wrapper's stdin, read from /proc rather than by running tty(1): one
      // fork and exec less before the program starts. A program already gone has no device to resize.
      if (line) resolve([Number(line[1]), slaveOf(Number(line[1]))]);
    });
    report.on('error', () => undefined);
    report.once('close', () => reject(new Error('the terminal program did not start')));
  });
  reported.catch(() => undefined);
  const pid = reported.then(([programPid]) => programPid);
  const device = reported.then(([, slave]) => slave);
  const signal = (target: number, name: NodeJS.Signals) => {
    try {
      process.kill(target, name);
    } catch {
      // ESRCH: already gone.
    }
  };
  return {
    child,
    pid,
    device,
    write(bytes) {
      if (child.stdin!.writable) child.stdin!.write(bytes);
    },
    async resize(rows, cols) {
      const slave = await device;
      if (!slave) throw toolgateError('TOOL_FAILED', 'Could not resize the terminal: its program has ended');
      // Not detached: stty stays in the runtime's session, where opening the slave cannot make it
      // anyone's controlling terminal.
      const done = spawnSync('stty', ['-F', slave, 'rows', String(rows), 'cols', String(cols)], {
        encoding: 'utf8',
        timeout: 5000,
      });
      if (done.status !== 0)
        throw toolgateError(
          'TOOL_FAILED',
          `Could not resize the terminal: ${done.stderr.trim() || 'stty failed'}`,
        );
    },
    kill() {
      void pid.then(
        (programPid) => {
          signal(-programPid, 'SIGHUP');
          setTimeout(() => signal(-programPid, 'SIGKILL'), 500).unref();
        },
        () => undefined,
      );
      if (child.pid !== undefined) {
        signal(-child.pid, 'SIGHUP');
        setTimeout(() => signal(-child.pid!, 'SIGKILL'), 500).unref();
      }
    },
  };
}
