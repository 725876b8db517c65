// How a runtime process is started: the only difference between the backends.
import type { ChildProcess } from 'node:child_process';

export interface RuntimeStart {
  readonly sessionId: string;
  /** Host path of the session's workspace directory (the root itself; the service never looks inside). */
  readonly workspaceRoot: string;
  /**
   * Host path of the session's egress socket (see network/egress.ts): its only way out. The backend shows
   * it inside at SANDBOX_EGRESS_SOCKET; undefined: the session has no network at all.
   */
  readonly egressSocket?: string;
  /** Workspace quota in bytes (0: none), which the runtime holds commands to. */
  readonly quotaBytes: number;
  /** Host directories to show read-only inside, at the same path (unisolated: visible anyway). */
  readonly readOnlyPaths: readonly string[];
  /** A forked session's copy-on-write workspace: mounted over workspaceRoot in the runtime's own namespace. */
  readonly overlay?: OverlayMount;
}

/**
 * An overlayfs mount, its layer directories relative to `cwd` (so the sandbox's mount table names no host
 * path): read-only lower trees (topmost first), the session's writable upper dir and overlayfs' work dir.
 */
export interface OverlayMount {
  readonly cwd: string;
  readonly lowerDirs: readonly string[];
  readonly upperDir: string;
  readonly workDir: string;
}

export interface RuntimeBackend {
  readonly name: 'bwrap' | 'none';
  /** True only when the runtime (and so every tool and command) cannot see past the workspace. */
  readonly isolated: boolean;
  readonly detail: string;
  /** Where the runtime's own Node.js binary is, as its commands see it (MCP servers run on it). */
  readonly nodePath: string;
  start(request: RuntimeStart): ChildProcess;
  /** Host pid of the runtime's own Node.js process (not bwrap's), from the pid it reports of itself. */
  runtimePid(runtime: ChildProcess, innerRuntimePid: number): number | undefined;
  /** Host pid of a process the runtime started, from the pid the runtime sees (they differ in a pid namespace). */
  hostPid(runtime: ChildProcess, innerRuntimePid: number, innerPid: number): number | undefined;
}
