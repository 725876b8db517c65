// Terminals: commands with a pseudo-terminal, held by the runtime between calls (exec_command,
// write_stdin). The runtime keeps each terminal's unread output and its screen; every call waits up to
// `yieldMs` for the program, then answers with what it printed meanwhile.
import type { ResourceLimits } from '../runner/types.js';

/** How one call reads a terminal: how long to wait, how much output to return, whether to render. */
export interface TerminalRead {
  /** Wait this long for output (or until the program exits), then answer. */
  readonly yieldMs: number;
  /** Most bytes of output returned; beyond it the oldest unread output is dropped (counted). */
  readonly maxOutputBytes: number;
  /** Also return the rendered screen (what a full-screen program shows). */
  readonly screen: boolean;
}

/** What a call sees of a terminal after it waited. */
export interface TerminalState {
  readonly id: string;
  readonly pid: number;
  /** False once the program exited; the terminal is then gone from the runtime. */
  readonly running: boolean;
  readonly exitCode: number | null;
  /** Output since the previous call, escape sequences removed. */
  readonly output: string;
  /** Bytes of unread output dropped (the kept part is the newest). */
  readonly droppedBytes: number;
  /** The visible screen, one string per row, trailing blanks trimmed (only when asked for). */
  readonly screen?: readonly string[];
  readonly cursor?: { readonly row: number; readonly col: number };
  readonly rows: number;
  readonly cols: number;
}

export interface TerminalInfo {
  readonly id: string;
  readonly command: string;
  readonly pid: number;
  readonly rows: number;
  readonly cols: number;
  readonly startedAt: string;
  readonly lastUsedAt: string;
  /** Unread output waiting for the next write_stdin. */
  readonly unreadBytes: number;
  /** False once the program exited (its terminal leaves the table when a call reads that end). */
  readonly running: boolean;
  readonly exitCode: number | null;
  /** The visible screen, as TerminalState's (only when the list asked for screens). */
  readonly screen?: readonly string[];
  readonly cursor?: { readonly row: number; readonly col: number };
}

/** Per-session bounds the service passes with every start (from config `terminals`). */
export interface TerminalBounds {
  /** Open terminals a session may hold. */
  readonly max: number;
  /** A terminal not read or written for this long is closed. */
  readonly idleMs: number;
  /** Unread output kept per terminal. */
  readonly keepBytes: number;
}

export interface TerminalOps {
  terminalStart: {
    args: TerminalRead & {
      readonly command: string;
      readonly cwd: string;
      readonly env: Readonly<Record<string, string>>;
      readonly rows: number;
      readonly cols: number;
      readonly limits: ResourceLimits;
      readonly bounds: TerminalBounds;
    };
    result: TerminalState;
  };
  /** Writes the payload's bytes (keys, control characters) to the terminal, then reads as asked. */
  terminalWrite: { args: TerminalRead & { readonly id: string }; result: TerminalState };
  /** Sets the window size (TIOCSWINSZ on the terminal; the program gets SIGWINCH). */
  terminalResize: {
    args: { readonly id: string; readonly rows: number; readonly cols: number };
    result: { rows: number; cols: number };
  };
  terminalClose: { args: { readonly id: string }; result: { id: string; exitCode: number | null } };
  /**
   * The open terminals; with `screens`, each one's rendered screen too. Listing reads nothing: the unread
   * output stays for the next write_stdin, and no terminal counts as used (its idle close is not put off).
   */
  terminalList: { args: { readonly screens?: boolean }; result: { terminals: TerminalInfo[] } };
}
