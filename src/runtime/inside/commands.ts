// Commands, started from inside the runtime: `prlimit … shell -c command` as the leader of its own
// process group, cwd inside the workspace. When the service asks to `hold` it, a tiny wrapper waits on
// fd 3 until `release`, so the service can put the process into its cgroup before anything runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { toolgateError, fromFsError } from '../../core/errors.js';
import { prlimitArgs } from '../../sandbox/runner/limits.js';
import type { CommandOps } from '../ops/commands.js';
import { reply, type Handlers, type OpContext } from './handler.js';

/** How long a killed command's output may take to drain before the streams are cut. */
const KILL_GRACE_MS = 500;

export interface CommandSetup {
  readonly shell: string;
  readonly prlimit: string | undefined;
  /** RLIMIT_NPROC only means something inside a user namespace (see limits.ts). */
  readonly processLimit: boolean;
}

interface Running {
  readonly child: ChildProcess;
  readonly pid: number;
  release(): void;
  kill(): void;
}

const killGroup = (pid: number) => {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
};

export function commandHandlers(setup: CommandSetup): { handlers: Handlers<CommandOps>; killAll(): void } {
  const running = new Map<number, Running>();
  const find = (proc: number): Running => {
    const entry = running.get(proc);
    if (!entry) throw toolgateError('NOT_FOUND', `No running process ${proc}`);
    return entry;
  };

  function start(args: Parameters<Handlers<CommandOps>['spawn']>[0], cwd: string, ctx: OpContext): Running {
    const limited = setup.prlimit ? [setup.prlimit, ...prlimitArgs(args.limits, setup.processLimit)] : [];
    const argv = [...limited, setup.shell, '-c', args.command];
    const [file, fileArgs] = args.hold
      ? ['/bin/sh', ['-c', 'read -r _ <&3; exec 3<&-; exec "$@"', 'sh', ...argv]]
      : [argv[0], argv.slice(1)];
    const child = spawn(file, fileArgs, {
      cwd,
      env: args.env,
      detached: true,
      stdio: args.hold ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe'],
    });
    const pid = child.pid;
    if (pid === undefined) throw toolgateError('TOOL_FAILED', 'The command could not be started');
    const gate = args.hold ? (child.stdio[3] as NodeJS.WritableStream & { destroy(): void }) : undefined;
    child.stdin!.on('error', () => undefined);
    gate?.on('error', () => undefined);
    let killedAt: (() => void) | undefined;
    const killed = new Promise<void>((resolve) => (killedAt = resolve));
    for (const stream of ['stdout', 'stderr'] as const) {
      child[stream]!.on('data', (chunk: Buffer) => ctx.send({ t: 'out', proc: args.proc, stream }, chunk));
    }
    const drained = Promise.all([
      new Promise((r) => child.stdout!.once('close', r)),
      new Promise((r) => child.stderr!.once('close', r)),
    ]);
    child.once('error', () => undefined);
    child.once('exit', (exitCode, signal) => {
      // A finished command leaves nothing behind in its group.
      killGroup(pid);
      const grace = killed.then(
        () => new Promise<'grace'>((r) => setTimeout(() => r('grace'), KILL_GRACE_MS)),
      );
      void Promise.race([drained, grace]).then((won) => {
        if (won === 'grace') {
          child.stdout!.destroy();
          child.stderr!.destroy();
        }
        running.delete(args.proc);
        ctx.send({ t: 'exit', proc: args.proc, exitCode, signal });
      });
    });
    return {
      child,
      pid,
      release() {
        if (!gate) return;
        gate.end('go\n');
      },
      kill() {
        killGroup(pid);
        killedAt?.();
      },
    };
  }

  const handlers: Handlers<CommandOps> = {
    async spawn(args, _payload, ctx) {
      if (running.has(args.proc)) throw toolgateError('CONFLICT', `Process ${args.proc} already exists`);
      const cwd = await ctx.paths.resolve(args.cwd);
      const stat = await fs.stat(cwd.absolute).catch((err) => {
        throw fromFsError(err, cwd.relative);
      });
      if (!stat.isDirectory())
        throw toolgateError('NOT_A_DIRECTORY', `cwd ${cwd.relative} is not a directory`);
      const entry = start(args, cwd.absolute, ctx);
      running.set(args.proc, entry);
      return reply({ pid: entry.pid, cwd: cwd.relative });
    },
    release({ proc }) {
      find(proc).release();
      return reply({});
    },
    stdin({ proc, end }, payload) {
      const entry = running.get(proc);
      // Input for a command that already ended is dropped, as a pipe would.
      if (entry) {
        if (payload.length > 0) entry.child.stdin!.write(payload);
        if (end) entry.child.stdin!.end();
      }
      return reply({});
    },
    kill({ proc }) {
      running.get(proc)?.kill();
      return reply({});
    },
  };
  return {
    handlers,
    killAll() {
      for (const entry of running.values()) entry.kill();
    },
  };
}
