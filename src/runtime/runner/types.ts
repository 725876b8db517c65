// The command sandbox's vocabulary: which backend runs commands, the limits a command gets, what a
// spawned command looks like to callers. Every tool that spawns goes through CommandRunner with these.
import type { Readable, Writable } from 'node:stream';

export type SandboxBackend = 'bwrap' | 'none' | 'docker' | 'kubernetes';

/** What the sandbox can do here; shown by /readyz, the tools listing and every run_command result. */
export interface SandboxStatus {
  /** The backend commands run with, or null when execution is disabled. */
  readonly backend: SandboxBackend | null;
  /** True only for bwrap: commands cannot see the host, its network or other sessions. */
  readonly isolated: boolean;
  /** False when no backend may be used: the execution category is disabled. */
  readonly available: boolean;
  /** Why the backend was chosen or why execution is disabled. */
  readonly detail: string;
}

/** Per-process rlimits applied inside the sandbox before the command starts. */
export interface ResourceLimits {
  readonly cpuSeconds: number;
  /** Address space (RLIMIT_AS). */
  readonly memoryBytes: number;
  /** RLIMIT_NPROC; counted per sandbox because each bwrap command has its own user namespace. */
  readonly maxProcesses: number;
  readonly fileSizeBytes: number;
  readonly openFiles: number;
}

export interface SpawnRequest {
  /** Run with bash -c (sh -c when bash is missing). */
  readonly command: string;
  /** Host path of the session's workspace (real path). */
  readonly workspaceRoot: string;
  /** Working directory relative to the workspace root ("." for the root). */
  readonly cwd: string;
  /** Caller-supplied variables added to the clean environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly limits: ResourceLimits;
}

export interface ExitInfo {
  readonly exitCode: number | null;
  /** Signal name (SIGKILL, SIGXCPU, …) when the command was killed by one. */
  readonly signal: string | null;
  /** Set when the runtime stopped the command itself: it pushed the workspace past its quota. */
  readonly reason?: 'quota';
}

export interface SandboxedProcess {
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly stdin: Writable;
  /** Resolves once the command and everything it started are gone and the output is drained. */
  readonly exited: Promise<ExitInfo>;
  /** Kills the command and every process it started (process group / pid namespace). Idempotent. */
  kill(): void;
}
