// Commands started by the runtime inside its namespace: one process group each, with its own rlimits.
// Output and exit come back as process events (see protocol.ts), not as the reply.
import type { ResourceLimits } from '../runner/types.js';

export interface SpawnArgs {
  /** Chosen by the service; names the process in later events and requests. */
  readonly proc: number;
  readonly command: string;
  /** Working directory as the caller gave it (resolved and checked inside). */
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly limits: ResourceLimits;
  /** Hold the command before exec until `release` (the service puts it into its cgroup meanwhile). */
  readonly hold: boolean;
}

export interface CommandOps {
  spawn: { args: SpawnArgs; result: { pid: number; cwd: string } };
  release: { args: { proc: number }; result: Record<string, never> };
  /** Bytes in the payload go to the command's stdin; `end` closes it. */
  stdin: { args: { proc: number; end?: boolean }; result: Record<string, never> };
  kill: { args: { proc: number }; result: Record<string, never> };
}
