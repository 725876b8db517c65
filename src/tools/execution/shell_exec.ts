// shell_exec: a command in one of the session's persistent shells, which keeps what earlier commands
// left (cwd, variables, functions, aliases, an activated venv). The shell opens on first use of its name;
// one that died is reported dead, never opened again behind the caller's back. See docs/shells.md.
import { StringDecoder } from 'node:string_decoder';
import { Type } from 'typebox';
import { toolgateError } from '../../lib/errors.js';
import { defineTool } from '../../contract/tool.js';
import { HeadTailCapture } from '../../jobs/head-tail.js';
import { ShellNameInput, shellStart, DEFAULT_SHELL } from '../../jobs/shell-view.js';

const MAX_TIMEOUT_MS = 600_000;
/** The interrupt takes up to two seconds (SIGINT, SIGKILL, then the shell): the call waits for it. */
const INTERRUPT_ALLOWANCE_MS = 5_000;

const Input = Type.Object(
  {
    shell: ShellNameInput,
    command: Type.String({
      minLength: 1,
      maxLength: 100_000,
      description: 'Bash code, run in the shell as if typed at its prompt (cd, export, source persist)',
    }),
    timeout_ms: Type.Optional(
      Type.Integer({
        minimum: 100,
        maximum: MAX_TIMEOUT_MS,
        description:
          "Interrupt the command after this long (SIGINT, then SIGKILL); the shell stays. Default: the server's limits.commandTimeoutMs",
      }),
    ),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  shell: Type.String(),
  exitCode: Type.Union([Type.Integer(), Type.Null()], { description: '130 when interrupted' }),
  stdout: Type.String(),
  stderr: Type.String(),
  cwd: Type.String({ description: "The shell's working directory after the command, workspace-relative" }),
  durationMs: Type.Integer(),
  timedOut: Type.Boolean(),
  truncated: Type.Boolean({ description: 'stdout or stderr was cut to head and tail' }),
  shellDied: Type.Boolean({ description: 'The shell exited (exit, a signal): shell_restart to go on' }),
  opened: Type.Boolean({ description: 'The shell was opened by this call (first use of the name)' }),
});

export default defineTool({
  name: 'shell_exec',
  category: 'execution',
  description:
    'Run bash code in a persistent shell of this session: state carries over between calls, as in a ' +
    'terminal (cd, export, shell functions, aliases, source .venv/bin/activate). The shell "main" opens ' +
    'on first use; shell_open opens more. One command at a time per shell (a second gets 409 ' +
    'SHELL_BUSY). timeout_ms interrupts the command like Ctrl-C and keeps the shell. Returns the exit ' +
    "code, stdout, stderr and the shell's cwd. stdin is /dev/null: for interactive programs use a " +
    'terminal. Same sandbox and limits as run_command.',
  capabilities: { executesCommands: true, readsFiles: true, writesFiles: true, destructive: true },
  input: Input,
  output: Output,
  examples: [
    { shell: DEFAULT_SHELL, command: 'cd src && ls' },
    { shell: DEFAULT_SHELL, command: 'source .venv/bin/activate && pytest -q', timeout_ms: 300_000 },
  ],
  timeoutMs: (input) => Math.min(input.timeout_ms ?? MAX_TIMEOUT_MS, MAX_TIMEOUT_MS) + INTERRUPT_ALLOWANCE_MS,
  async execute(input, ctx) {
    if (input.command.includes('\0'))
      throw toolgateError('VALIDATION_FAILED', 'command contains a NUL character');
    const { runner, shells } = ctx.services;
    const timeoutMs = Math.min(
      input.timeout_ms ?? ctx.limits.commandTimeoutMs,
      ctx.limits.commandMaxTimeoutMs,
    );
    const readAll = 'redirect the output to a file to keep all of it';
    const captures = {
      stdout: new HeadTailCapture(ctx.limits.outputMaxBytes, readAll),
      stderr: new HeadTailCapture(ctx.limits.outputMaxBytes, readAll),
    };
    const decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
    const result = await shells.exec(
      ctx.workspace.runtime,
      { name: input.shell, command: input.command, timeoutMs },
      // Checks that commands may run here at all (SANDBOX_UNAVAILABLE) before opening anything.
      shellStart(input.shell, '.', runner.commandEnv({}), ctx.limits.commandMaxTimeoutMs),
      (stream, chunk) => {
        captures[stream].push(chunk);
        const text = decoders[stream].write(chunk);
        if (text) ctx.emit({ stream, chunk: text });
      },
      ctx.signal,
    );
    return {
      shell: input.shell,
      exitCode: result.exitCode,
      stdout: captures.stdout.text(),
      stderr: captures.stderr.text(),
      cwd: result.cwd,
      durationMs: result.durationMs,
      timedOut: result.timedOut,
      truncated: captures.stdout.truncated || captures.stderr.truncated,
      shellDied: result.shellDied,
      opened: result.opened,
    };
  },
  render(data) {
    const head = data.timedOut
      ? `Interrupted after ${data.durationMs} ms (timeout)`
      : `Exit code ${data.exitCode ?? 'none'} after ${data.durationMs} ms`;
    const parts = [`${head}; shell ${data.shell}, cwd ${data.cwd}`];
    if (data.stdout) parts.push(`stdout:\n${data.stdout}`);
    if (data.stderr) parts.push(`stderr:\n${data.stderr}`);
    if (data.shellDied)
      parts.push(`The shell exited; shell_restart with shell "${data.shell}" starts it again.`);
    return parts.join('\n');
  },
});
