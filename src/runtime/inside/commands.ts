// Commands, started from inside the runtime: the shell, under its rlimits, as the leader of its own
// process group, cwd inside the workspace. When the service asks to `hold` it, the shell waits on fd 3
// until `release`, so the service can put the process into its cgroup before anything runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { toolgateError, fromFsError } from '../../lib/errors.js';
import { prlimitArgs } from '../runner/prlimit.js';
import type { CommandOps, SpawnArgs } from '../ops/commands.js';
import { reply, type Handlers, type OpContext } from './handler.js';
import type { UsageTracker } from './usage.js';
import type { KeptOutput } from './kept-output.js';

/** How long a killed command's output may take to drain before the streams are cut. */
const KILL_GRACE_MS = 500;

export interface CommandSetup {
  readonly shell: string;
  readonly prlimit: string | undefined;
  /** RLIMIT_NPROC only means something inside a user namespace (see limits.ts). */
  readonly processLimit: boolean;
  /** The workspace quota in bytes (0: none). Commands are held to it (see quota watch below). */
  readonly quotaBytes: number;
  readonly usage: UsageTracker;
  /** The proxy variables of the sandbox's egress relay (none without the network); the caller's env wins. */
  readonly proxyEnv: Readonly<Record<string, string>>;
  /** Container backends: tagged commands' output and exits are kept for a re-attached service. */
  readonly kept?: KeptOutput;
}

interface Running {
  readonly child: ChildProcess;
  readonly pid: number;
  release(): void;
  kill(reason?: 'quota'): void;
}

/**
 * The command line for one command. With bash, one process does it all: wait for release (fd 3), set
 * the limits with `ulimit` (soft and hard together, so the command cannot raise them), then run the
 * command with `eval`, so no extra exec of prlimit and a second shell (each costs milliseconds). Other
 * shells get the wrapper sh + prlimit.
 */
export function commandLine(setup: CommandSetup, args: SpawnArgs): [string, string[]] {
  const hold = args.hold ? 'read -r _ <&3; exec 3<&-; ' : '';
  if (path.basename(setup.shell) === 'bash') {
    const { limits } = args;
    const ulimits = [
      `-t ${limits.cpuSeconds}`,
      `-v ${Math.floor(limits.memoryBytes / 1024)}`,
      `-f ${Math.floor(limits.fileSizeBytes / 1024)}`,
      `-n ${limits.openFiles}`,
      ...(setup.processLimit ? [`-u ${limits.maxProcesses}`] : []),
    ].join(' ');
    // The command string arrives as $1 and leaves no trace: positional parameters are cleared and the
    // helper variable is unset before the command's own code runs.
    const script = `${hold}ulimit ${ulimits} || exit 126; __tg_c=$1; set --; eval "unset -v __tg_c; $__tg_c"`;
    return [setup.shell, ['-c', script, 'bash', args.command]];
  }
  const limited = setup.prlimit ? [setup.prlimit, ...prlimitArgs(args.limits, setup.processLimit)] : [];
  const argv = [...limited, setup.shell, '-c', args.command];
  return hold ? ['/bin/sh', ['-c', `${hold}exec "$@"`, 'sh', ...argv]] : [argv[0], argv.slice(1)];
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
  const { usage, quotaBytes, kept } = setup;

  // The quota watch: while commands run, rescan now and then; past the quota, every command is stopped.
  let watch: NodeJS.Timeout | null = null;
  const scheduleWatch = (delayMs = usage.watchInterval()) => {
    if (quotaBytes === 0 || running.size === 0) return;
    if (watch && delayMs === 0) clearTimeout(watch);
    else if (watch) return;
    watch = setTimeout(() => {
      void usage.scan().then((now) => {
        watch = null;
        if (now.bytes > quotaBytes) for (const entry of running.values()) entry.kill('quota');
        scheduleWatch();
      });
    }, delayMs);
  };
  const find = (proc: number): Running => {
    const entry = running.get(proc);
    if (!entry) throw toolgateError('NOT_FOUND', `No running process ${proc}`);
    return entry;
  };

  function start(
    args: Parameters<Handlers<CommandOps>['spawn']>[0],
    cwd: string,
    ctx: OpContext,
    quotaLimited: boolean,
  ): Running {
    const [file, fileArgs] = commandLine(setup, args);
    let killReason: 'quota' | undefined;
    const child = spawn(file, fileArgs, {
      cwd,
      env: { ...setup.proxyEnv, ...args.env },
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
    kept?.track(args.proc, args.tag);
    for (const stream of ['stdout', 'stderr'] as const) {
      child[stream]!.on('data', (chunk: Buffer) => {
        kept?.out(args.proc, stream, chunk);
        ctx.send({ t: 'out', proc: args.proc, stream }, chunk);
      });
    }
    const drained = Promise.all([
      new Promise((r) => child.stdout!.once('close', r)),
      new Promise((r) => child.stderr!.once('close', r)),
    ]);
    child.once('error', () => undefined);
    child.once('exit', (exitCode, signal) => {
      // A finished command leaves nothing behind in its group.
      killGroup(pid);
      // What it wrote is not counted: rescan. Under a quota, at once and in the background, so the
      // next command or write usually finds fresh numbers instead of paying for the scan itself.
      usage.invalidate();
      if (quotaBytes > 0) void usage.scan();
      const grace = killed.then(
        () => new Promise<'grace'>((r) => setTimeout(() => r('grace'), KILL_GRACE_MS)),
      );
      void Promise.race([drained, grace]).then(async (won) => {
        if (won === 'grace') {
          child.stdout!.destroy();
          child.stderr!.destroy();
        }
        // Its file-size limit was the room left under the quota: if it (or a child, whose SIGXFSZ the shell
        // reports as exit 128+25) hit it, or the workspace is now full, the quota is what stopped it.
        // A command that succeeded was stopped by nothing; only a failure is worth a scan.
        if (quotaLimited && killReason === undefined) {
          if (signal === 'SIGXFSZ' || exitCode === 128 + 25) killReason = 'quota';
          else if ((exitCode !== 0 || signal) && (await usage.scan()).bytes >= quotaBytes)
            killReason = 'quota';
        }
        running.delete(args.proc);
        const exit = {
          t: 'exit' as const,
          proc: args.proc,
          exitCode,
          signal,
          ...(killReason ? { reason: killReason } : {}),
        };
        kept?.exit(args.proc, exit);
        ctx.send(exit);
      });
    });
    return {
      child,
      pid,
      release() {
        if (!gate) return;
        gate.end('go\n');
      },
      kill(reason) {
        if (reason) killReason ??= reason;
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
      // Under a quota, no single file may grow past the room that is left (RLIMIT_FSIZE): a `dd` that
      // would fill the disk stops at the quota instead of somewhere past it.
      // The room comes from the last numbers even when a command has run since (their rescan is under
      // way): waiting for a full scan would cost every command as much as the scan. The watch then
      // scans at once, and stops the command if the workspace is over.
      let limited = args;
      let quotaLimited = false;
      let staleRoom = false;
      if (quotaBytes > 0) {
        const known = usage.peek();
        const used = known ? known.usage.bytes : (await usage.current()).bytes;
        staleRoom = known?.stale ?? false;
        const room = Math.max(0, quotaBytes - used);
        if (room < args.limits.fileSizeBytes) {
          limited = { ...args, limits: { ...args.limits, fileSizeBytes: room } };
          quotaLimited = true;
        }
      }
      const entry = start(limited, cwd.absolute, ctx, quotaLimited);
      running.set(args.proc, entry);
      scheduleWatch(staleRoom ? 0 : undefined);
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
    procs() {
      return reply({ procs: kept?.list() ?? [] });
    },
    adopt({ proc }, _payload, ctx) {
      // In one turn, so no live output of the command comes between its replay and this answer.
      if (!kept?.replay(proc, ctx.send)) throw toolgateError('NOT_FOUND', `No kept process ${proc}`);
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
