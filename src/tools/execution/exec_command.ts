// exec_command: starts a command on a terminal (PTY) that stays open between calls, codex-style.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { effectiveLimits } from '../../runtime/runner/limits.js';
import {
  afterTerminalCall,
  MAX_YIELD_MS,
  readInputs,
  renderTerminal,
  terminalData,
  terminalRead,
  TerminalStateSchema,
} from '../../jobs/terminal-view.js';

const DEFAULT_YIELD_MS = 10_000;

const Input = Type.Object(
  {
    cmd: Type.String({
      minLength: 1,
      maxLength: 100_000,
      description: 'Command line, run with bash -c on a terminal',
    }),
    workdir: Type.String({ default: '.', description: 'Working directory, workspace-relative' }),
    rows: Type.Integer({ minimum: 2, maximum: 500, default: 24, description: 'Terminal height' }),
    cols: Type.Integer({ minimum: 10, maximum: 500, default: 80, description: 'Terminal width' }),
    ...readInputs(DEFAULT_YIELD_MS),
  },
  { additionalProperties: false },
);

export default defineTool({
  name: 'exec_command',
  category: 'execution',
  description:
    'Start a command on a terminal (a PTY) that stays open between calls: for interactive programs (a REPL, ' +
    'a y/n prompt, git rebase -i, less, top). Waits up to yield_time_ms for output, then returns it with a ' +
    'terminal id while the program runs; write_stdin sends keystrokes (Ctrl-C included) or polls. ' +
    'screen: true also returns the rendered screen of full-screen programs. For a plain command whose ' +
    'output you want, run_command is simpler.',
  capabilities: { executesCommands: true, readsFiles: true, writesFiles: true, destructive: true },
  input: Input,
  output: TerminalStateSchema,
  examples: [{ cmd: 'python3', workdir: '.', rows: 24, cols: 80, yield_time_ms: 1000 }],
  timeoutMs: (input) => (input.yield_time_ms ?? DEFAULT_YIELD_MS) + 30_000,
  async execute(input, ctx) {
    const { config } = ctx.services;
    const { result } = await ctx.workspace.call('terminalStart', {
      command: input.cmd,
      cwd: input.workdir,
      env: {},
      rows: input.rows,
      cols: input.cols,
      // No CPU-time limit of a command's timeout: a terminal lives until closed (or idle), not one call.
      limits: effectiveLimits(MAX_YIELD_MS * 20),
      bounds: {
        max: config.terminals.maxPerSession,
        idleMs: config.terminals.idleSeconds * 1000,
        keepBytes: config.terminals.keepBytes,
      },
      ...terminalRead(input, DEFAULT_YIELD_MS),
    });
    return afterTerminalCall(ctx, terminalData(result));
  },
  render: renderTerminal,
});
