// The terminal operations: the runtime's table of open terminals (ids term_1, term_2… in the order they
// were opened, never reused in one runtime's life), at most `bounds.max` of them, each closed when no call
// has used it for `bounds.idleMs`. An exited program leaves the table once a call has read its end.
import { promises as fs } from 'node:fs';
import { toolgateError, fromFsError } from '../../../lib/errors.js';
import type { TerminalOps } from '../../ops/terminals.js';
import { reply, type Handlers } from '../handler.js';
import { spawnPty } from './pty-process.js';
import { Terminal } from './terminal.js';

export interface TerminalSetup {
  readonly shell: string;
  readonly processLimit: boolean;
  /** The egress relay's proxy variables (none without the network); the caller's env wins. */
  readonly proxyEnv: Readonly<Record<string, string>>;
}

export function terminalHandlers(setup: TerminalSetup): {
  handlers: Handlers<TerminalOps>;
  closeAll(): Promise<void>;
} {
  const open = new Map<string, Terminal>();
  let counter = 0;
  let idleMs = 0;
  let sweep: NodeJS.Timeout | undefined;

  const armSweep = () => {
    if (sweep || open.size === 0 || idleMs <= 0) return;
    sweep = setTimeout(
      () => {
        sweep = undefined;
        const now = Date.now();
        for (const terminal of open.values())
          if (now - terminal.lastUsedAt >= idleMs) void close(terminal.id);
        armSweep();
      },
      Math.min(idleMs, 60_000),
    );
    sweep.unref();
  };

  const find = (id: string): Terminal => {
    const terminal = open.get(id);
    if (!terminal)
      throw toolgateError('NOT_FOUND', `No open terminal ${id}`, {
        suggestion: 'terminal_list shows the open terminals; a program that exited closed its terminal.',
      });
    return terminal;
  };

  const close = async (id: string): Promise<number | null> => {
    const terminal = open.get(id);
    if (!terminal) return null;
    open.delete(id);
    return terminal.close();
  };

  /** A read that saw the program's end is its last: the terminal leaves the table. */
  const settle = (terminal: Terminal) => {
    if (!terminal.running) void close(terminal.id);
  };

  const handlers: Handlers<TerminalOps> = {
    async terminalStart(args, _payload, ctx) {
      if (open.size >= args.bounds.max)
        throw toolgateError(
          'TOO_MANY_TERMINALS',
          `This session has ${open.size} open terminals, the most it may have`,
          {
            suggestion: 'Close one with terminal_close (terminal_list shows them).',
          },
        );
      const cwd = await ctx.paths.resolve(args.cwd);
      const stat = await fs.stat(cwd.absolute).catch((err) => {
        throw fromFsError(err, cwd.relative);
      });
      if (!stat.isDirectory())
        throw toolgateError('NOT_A_DIRECTORY', `cwd ${cwd.relative} is not a directory`);
      idleMs = args.bounds.idleMs;
      const id = `term_${++counter}`;
      const pty = spawnPty({
        command: args.command,
        cwd: cwd.absolute,
        env: { ...setup.proxyEnv, ...args.env },
        rows: args.rows,
        cols: args.cols,
        limits: args.limits,
        shell: setup.shell,
        processLimit: setup.processLimit,
      });
      const terminal = new Terminal(id, args.command, pty, args.rows, args.cols, args.bounds.keepBytes, () =>
        ctx.usage.invalidate(),
      );
      open.set(id, terminal);
      armSweep();
      const state = await terminal.read(args, ctx.signal);
      settle(terminal);
      return reply(state);
    },
    async terminalWrite(args, payload, ctx) {
      const terminal = find(args.id);
      terminal.write(payload);
      const state = await terminal.read(args, ctx.signal);
      settle(terminal);
      return reply(state);
    },
    async terminalResize({ id, rows, cols }) {
      await find(id).resize(rows, cols);
      return reply({ rows, cols });
    },
    async terminalClose({ id }) {
      find(id);
      return reply({ id, exitCode: await close(id) });
    },
    async terminalList({ screens }) {
      const terminals = await Promise.all([...open.values()].map((terminal) => terminal.info(screens)));
      return reply({ terminals });
    },
  };
  return {
    handlers,
    async closeAll() {
      await Promise.all([...open.keys()].map(close));
    },
  };
}
