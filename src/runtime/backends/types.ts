// How a runtime process is started: the only difference between the backends.
import type { ChildProcess } from 'node:child_process';

export interface RuntimeStart {
  readonly sessionId: string;
  /** Host path of the session's workspace directory (the root itself; the service never looks inside). */
  readonly workspaceRoot: string;
  /** The session may use the network (its commands share the host's network namespace). */
  readonly network: boolean;
  /** Workspace quota in bytes (0: none), which the runtime holds commands to. */
  readonly quotaBytes: number;
  /** Host directories visible read-only at the same path (a one-shot runtime cloning a local repository). */
  readonly readOnlyBinds?: readonly string[];
}

export interface RuntimeBackend {
  readonly name: 'bwrap' | 'none';
  /** True only when the runtime (and so every tool and command) cannot see past the workspace. */
  readonly isolated: boolean;
  readonly detail: string;
  start(request: RuntimeStart): ChildProcess;
  /** Host pid of a process the runtime started, from the pid the runtime sees (they differ in a pid namespace). */
  hostPid(runtime: ChildProcess, innerRuntimePid: number, innerPid: number): number | undefined;
}
