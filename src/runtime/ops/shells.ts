// Persistent shells held by the runtime: a bash process per name that keeps its cwd, variables,
// functions and aliases between commands. The shells live inside the runtime (so a re-attached
// container still has them); the service only names them. See docs/shells.md.
import { toolgateError } from '../../lib/errors.js';
import type { ResourceLimits } from '../runner/types.js';

/** What the runtime says of one shell. */
export interface ShellInfo {
  readonly name: string;
  /** idle: ready for a command; busy: running one; dead: its bash exited (see deadReason). */
  readonly state: 'idle' | 'busy' | 'dead';
  /** The bash process id in the runtime's view. */
  readonly pid: number;
  /** Workspace-relative cwd after the last command ('.' the root), or the absolute path when outside it. */
  readonly cwd: string;
  readonly startedAt: number;
  readonly lastUsedAt: number;
  readonly commands: number;
  readonly lastCommand?: string;
  readonly lastExitCode?: number | null;
  /** The last part of the last command's output (both streams, as they came). */
  readonly lastOutput?: string;
  readonly deadReason?: string;
}

export interface ShellOpenArgs {
  readonly name: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly limits: ResourceLimits;
  /** Shells the session may have at once (dead ones count until closed or restarted). */
  readonly maxShells: number;
  /** true: an existing shell of that name is killed and replaced (restart). */
  readonly replace: boolean;
}

export interface ShellExecArgs {
  readonly name: string;
  readonly command: string;
  readonly timeoutMs: number;
  /** Output of this command streams as process events of this number (see SessionRuntime.callWithOutput). */
  readonly proc: number;
}

export interface ShellExecResult {
  readonly exitCode: number | null;
  readonly cwd: string;
  readonly timedOut: boolean;
  /** The shell did not stop after the interrupt and was killed: it is dead now. */
  readonly shellDied: boolean;
  readonly durationMs: number;
}

export interface ShellOps {
  shellOpen: { args: ShellOpenArgs; result: ShellInfo };
  shellExec: { args: ShellExecArgs; result: ShellExecResult };
  shellClose: { args: { name: string }; result: { closed: boolean } };
  shellList: { args: Record<string, never>; result: { shells: ShellInfo[] } };
}

/** The error for a command sent to a shell that is gone, said the same by the runtime and the service. */
export const shellDead = (name: string, reason: string) =>
  toolgateError('SHELL_DEAD', `Shell ${name} is dead: ${reason}`, {
    suggestion: `shell_restart with shell "${name}" starts it again (its state is lost), or shell_close forgets it.`,
    details: { shell: name },
  });
