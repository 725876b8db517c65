// The runtime's persistent shells by name: open (or restart), run a command, close, list. They belong to
// the runtime process, so they live as long as it does: a container's runtime keeps them across a
// service restart, and the service finds them again by listing.
import path from 'node:path';
import { promises as fs } from 'node:fs';
import { toolgateError, fromFsError } from '../../../lib/errors.js';
import type { ShellOpenArgs, ShellOps } from '../../ops/shells.js';
import { reply, type Handlers, type OpContext } from '../handler.js';
import { PersistentShell } from './persistent-shell.js';

export interface ShellSetup {
  /** The runtime's shell when it is bash, else bash from PATH: shells need bash's job control and traps. */
  readonly bash: string;
  readonly processLimit: boolean;
  readonly proxyEnv: Readonly<Record<string, string>>;
}

export function shellHandlers(setup: ShellSetup): { handlers: Handlers<ShellOps>; killAll(): void } {
  const shells = new Map<string, PersistentShell>();
  const bash = path.basename(setup.bash) === 'bash' ? setup.bash : 'bash';

  async function open(args: ShellOpenArgs, ctx: OpContext): Promise<PersistentShell> {
    const existing = shells.get(args.name);
    if (existing && !args.replace) {
      throw toolgateError('ALREADY_EXISTS', `Shell ${args.name} is open already (${existing.state})`, {
        suggestion: 'Run commands in it with shell_exec, or start it fresh with shell_restart.',
      });
    }
    const others = shells.size - (existing ? 1 : 0);
    if (others >= args.maxShells) {
      throw toolgateError(
        'TOO_MANY_SHELLS',
        `This session has ${others} shells open (the limit is ${args.maxShells})`,
        { suggestion: 'Close one with shell_close (shell_list shows them), then retry.' },
      );
    }
    const cwd = await ctx.paths.resolve(args.cwd);
    const stat = await fs.stat(cwd.absolute).catch((err) => {
      throw fromFsError(err, cwd.relative);
    });
    if (!stat.isDirectory()) throw toolgateError('NOT_A_DIRECTORY', `cwd ${cwd.relative} is not a directory`);
    if (existing) {
      existing.kill('it was restarted');
      shells.delete(args.name);
    }
    const shell = await PersistentShell.open({
      name: args.name,
      bash,
      cwd: cwd.absolute,
      env: { ...setup.proxyEnv, ...args.env },
      limits: args.limits,
      processLimit: setup.processLimit,
      showPath: (absolute) => (ctx.paths.contains(absolute) ? ctx.paths.toRelative(absolute) : absolute),
    });
    shells.set(args.name, shell);
    return shell;
  }

  const handlers: Handlers<ShellOps> = {
    async shellOpen(args, _payload, ctx) {
      return reply((await open(args, ctx)).info());
    },
    async shellExec(args, _payload, ctx) {
      const shell = shells.get(args.name);
      if (!shell) {
        throw toolgateError('NOT_FOUND', `No shell ${args.name} in this session`, {
          suggestion: 'shell_open opens one; shell_list shows the open ones.',
          details: { shell: args.name },
        });
      }
      const result = await shell.exec(
        args.command,
        args.timeoutMs,
        (stream, chunk) => ctx.send({ t: 'out', proc: args.proc, stream }, chunk),
        ctx.signal,
      );
      // What the command wrote is not counted: the next quota check rescans.
      ctx.usage.invalidate();
      return reply(result);
    },
    shellClose({ name }) {
      const shell = shells.get(name);
      shell?.kill('it was closed');
      shells.delete(name);
      return reply({ closed: shell !== undefined });
    },
    shellList() {
      return reply({ shells: [...shells.values()].map((shell) => shell.info()) });
    },
  };
  return {
    handlers,
    killAll() {
      for (const shell of shells.values()) shell.kill('the runtime stopped');
    },
  };
}
