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
  /**
   * The service's own record of the command (its job), kept by a runtime that keeps output (container
   * backends) and handed back by `procs`, so a restarted service can adopt the command as the same job.
   */
  readonly tag?: Readonly<Record<string, unknown>>;
}

/** A command a runtime that keeps output still knows: running, or ended with its exit kept. */
export interface KeptProcess {
  readonly proc: number;
  readonly tag: Readonly<Record<string, unknown>>;
  readonly running: boolean;
  /** Output bytes dropped from the front of the kept output (it holds the last part only). */
  readonly droppedBytes: number;
}

export interface CommandOps {
  spawn: { args: SpawnArgs; result: { pid: number; cwd: string } };
  release: { args: { proc: number }; result: Record<string, never> };
  /** Bytes in the payload go to the command's stdin; `end` closes it. */
  stdin: { args: { proc: number; end?: boolean }; result: Record<string, never> };
  kill: { args: { proc: number }; result: Record<string, never> };
  /** The tagged commands a runtime keeps output of (none unless it keeps output). */
  procs: { args: Record<string, never>; result: { procs: KeptProcess[] } };
  /** Sends the kept output (and the exit, if it ended) of `proc` again, marked as replay; then live. */
  adopt: { args: { proc: number }; result: Record<string, never> };
}
