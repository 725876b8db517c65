// What the terminal tools share: the terminal id input, the read options (yield, output cap, screen),
// named keys, and the state every call answers with, as TypeBox schemas and their text for a model.
import { Type, type Static } from 'typebox';
import type { Config } from '../config.js';

/** What of a tool's context a terminal call uses (jobs/ sits below the tool contract). */
interface TerminalCallContext {
  readonly workspace: { readonly runtime: { holdFor(ms: number): void } };
  readonly services: { readonly config: Pick<Config, 'terminals'> };
  emit(chunk: { stream: 'stdout'; chunk: string }): void;
}
import type { TerminalInfo, TerminalRead, TerminalState } from '../runtime/ops/terminals.js';

export const TerminalIdInput = Type.String({
  pattern: '^term_[0-9]{1,9}$',
  description: 'Terminal id returned by exec_command (or terminal_list)',
});

export const MAX_YIELD_MS = 30_000;
const MAX_OUTPUT_BYTES = 256 * 1024;

export const readInputs = (defaultYieldMs: number) => ({
  yield_time_ms: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_YIELD_MS,
      description: `How long to wait for output before answering (default ${defaultYieldMs}); the answer comes sooner when the program exits`,
    }),
  ),
  max_output_bytes: Type.Optional(
    Type.Integer({
      minimum: 256,
      maximum: MAX_OUTPUT_BYTES,
      description:
        'Most output returned (default 16384); older unread output beyond it is dropped and counted',
    }),
  ),
  screen: Type.Optional(
    Type.Boolean({
      description:
        'Also return the rendered screen (rows of text and the cursor), for full-screen programs such as less, vim or top',
    }),
  ),
});

export function terminalRead(
  input: { yield_time_ms?: number; max_output_bytes?: number; screen?: boolean },
  defaultYieldMs: number,
): TerminalRead {
  return {
    yieldMs: input.yield_time_ms ?? defaultYieldMs,
    maxOutputBytes: input.max_output_bytes ?? 16 * 1024,
    screen: input.screen ?? false,
  };
}

/** The keys write_stdin names, as the bytes a terminal sends for them (xterm, normal cursor mode). */
export const KEYS: Record<string, string> = {
  enter: '\r',
  tab: '\t',
  escape: '\x1b',
  backspace: '\x7f',
  delete: '\x1b[3~',
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  home: '\x1b[H',
  end: '\x1b[F',
  pageup: '\x1b[5~',
  pagedown: '\x1b[6~',
  space: ' ',
  ...Object.fromEntries(
    Array.from({ length: 26 }, (_, i) => [`ctrl-${String.fromCharCode(97 + i)}`, String.fromCharCode(i + 1)]),
  ),
  'ctrl-\\': '\x1c',
  'ctrl-]': '\x1d',
};

export const KeyName = Type.Enum(Object.keys(KEYS), { description: 'A named key' });

/** A terminal as terminal_list shows it (and the session's console view, with more). */
export const TerminalInfoSchema = Type.Object({
  terminalId: Type.String(),
  command: Type.String({ description: 'The command (cut to 200 characters)' }),
  pid: Type.Integer(),
  rows: Type.Integer(),
  cols: Type.Integer(),
  startedAt: Type.String(),
  lastUsedAt: Type.String(),
  unreadBytes: Type.Integer({ description: 'Output waiting for the next write_stdin' }),
});

export function terminalInfoData(info: TerminalInfo): Static<typeof TerminalInfoSchema> {
  const { id, command, pid, rows, cols, startedAt, lastUsedAt, unreadBytes } = info;
  return {
    terminalId: id,
    command: command.slice(0, 200),
    pid,
    rows,
    cols,
    startedAt,
    lastUsedAt,
    unreadBytes,
  };
}

export const TerminalStateSchema = Type.Object({
  terminalId: Type.String(),
  pid: Type.Integer(),
  running: Type.Boolean({ description: 'false: the program exited and its terminal is closed' }),
  exitCode: Type.Union([Type.Integer(), Type.Null()]),
  output: Type.String({ description: 'Output since the previous call, escape sequences removed' }),
  droppedBytes: Type.Integer({ description: 'Unread output dropped (only the newest part is kept)' }),
  screen: Type.Optional(Type.Array(Type.String(), { description: 'The visible screen, row by row' })),
  cursor: Type.Optional(Type.Object({ row: Type.Integer(), col: Type.Integer() })),
  rows: Type.Integer(),
  cols: Type.Integer(),
});
export type TerminalStateData = Static<typeof TerminalStateSchema>;

export function terminalData(state: TerminalState): TerminalStateData {
  const { id, screen, cursor, ...rest } = state;
  return {
    terminalId: id,
    ...rest,
    ...(screen ? { screen: [...screen] } : {}),
    ...(cursor ? { cursor } : {}),
  };
}

/**
 * After every terminal call: the runtime is held as long as its terminals may live, and what the program
 * printed goes to the session's event stream.
 */
export function afterTerminalCall(ctx: TerminalCallContext, data: TerminalStateData): TerminalStateData {
  ctx.workspace.runtime.holdFor(ctx.services.config.terminals.idleSeconds * 1000);
  if (data.output) ctx.emit({ stream: 'stdout', chunk: data.output });
  return data;
}

export function renderTerminal(data: TerminalStateData): string {
  const head = data.running
    ? `Terminal ${data.terminalId} is running (pid ${data.pid}); write_stdin sends input or polls.`
    : `The program exited with code ${data.exitCode ?? 'unknown'}; terminal ${data.terminalId} is closed.`;
  const parts = [head];
  if (data.droppedBytes > 0) parts.push(`(${data.droppedBytes} bytes of earlier output dropped)`);
  parts.push(data.output ? `Output:\n${data.output}` : 'No new output.');
  if (data.screen) {
    const cursor = data.cursor ? `, cursor at row ${data.cursor.row + 1} col ${data.cursor.col + 1}` : '';
    parts.push(`Screen (${data.rows}x${data.cols}${cursor}):\n${data.screen.join('\n')}`);
  }
  return parts.join('\n');
}
