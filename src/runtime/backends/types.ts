// How a runtime process is started: the only difference between the backends.
import type { Readable, Writable } from 'node:stream';
import type { SessionCpuGroup } from '../runner/cpu-cgroup.js';

/**
 * The service's handle on one running runtime: its byte streams and how to end it. A ChildProcess is
 * one (bwrap, none); the container backends give an attach stream wrapped the same way.
 */
export interface RuntimeProcess {
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  readonly pid?: number;
  kill(signal?: NodeJS.Signals): boolean;
  once(event: 'close', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  once(event: 'error', listener: (err: Error) => void): this;
  /**
   * Backends whose runtimes outlive the service (docker, kubernetes): let go of the runtime and leave it
   * running; a later start re-attaches to it.
   */
  detach?(): void;
}

export interface RuntimeStart {
  readonly sessionId: string;
  /** Host path of the session's workspace directory (the root itself; the service never looks inside). */
  readonly workspaceRoot: string;
  /**
   * Host path of the session's egress socket (see network/egress.ts): its only way out. The backend shows
   * it inside at SANDBOX_EGRESS_SOCKET; undefined: the session has no network at all.
   */
  readonly egressSocket?: string;
  /** The runtime's relay copies the egress bytes itself, never with splice(2) (network.spliceAfterBytes 0). */
  readonly egressCopy?: boolean;
  /**
   * Host directory of the service's ingress socket (src/preview/ingress.ts): the backend shows it
   * read-only inside at SANDBOX_INGRESS_DIR, and the runtime dials it to carry a preview's connection
   * out; undefined: the session may expose no ports.
   */
  readonly ingressDir?: string;
  /** Workspace quota in bytes (0: none), which the runtime holds commands to. */
  readonly quotaBytes: number;
  /** Host directories to show read-only inside, at the same path (unisolated: visible anyway). */
  readonly readOnlyPaths: readonly string[];
  /** A forked session's copy-on-write workspace: mounted over workspaceRoot in the runtime's own namespace. */
  readonly overlay?: OverlayMount;
  /** The session's image key (container backends; undefined: the backend's default image). */
  readonly image?: string;
  /** A one-shot runtime (RuntimeManager.oneShot): never re-attached, gone once stopped. */
  readonly transient?: boolean;
  /**
   * The cpu cgroup the runtime and everything it starts run in (bwrap, none: runner/cpu-cgroup.ts);
   * container backends have their engine's cgroups and ignore it.
   */
  readonly cpuGroup?: SessionCpuGroup;
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
  readonly name: 'bwrap' | 'none' | 'docker' | 'kubernetes';
  /** True only when the runtime (and so every tool and command) cannot see past the workspace. */
  readonly isolated: boolean;
  readonly detail: string;
  /** Where the runtime's own Node.js binary is, as its commands see it (MCP servers run on it). */
  readonly nodePath: string;
  start(request: RuntimeStart): RuntimeProcess;
  /** Host pid of the runtime's own Node.js process (not bwrap's), from the pid it reports of itself. */
  runtimePid(runtime: RuntimeProcess, innerRuntimePid: number): number | undefined;
  /** Host pid of a process the runtime started, from the pid the runtime sees (they differ in a pid namespace). */
  hostPid(runtime: RuntimeProcess, innerRuntimePid: number, innerPid: number): number | undefined;
  /** Runtimes outlive the service (containers, pods): close() detaches instead of stopping them. */
  readonly persistent?: boolean;
  /** The image keys a session may choose (container backends); undefined: this backend has no images. */
  readonly images?: readonly string[];
  /**
   * Throws IMAGE_NOT_FOUND when the image of `key` (undefined: the default) is not where runtimes are
   * made (docker: the engine); a session create asks before it makes the session. Unset: no check.
   */
  checkImage?(key: string | undefined): Promise<void>;
  /** The configured images missing where runtimes are made, by key (readiness, the start's warning). */
  missingImages?(): Promise<{ key: string; image: string }[]>;
  /** A deleted session's runtime is gone for good: remove its container or pod (after stop). */
  discard?(sessionId: string): Promise<void>;
  /** Removes runtimes whose session is not live (deleted, expired, or unknown: orphans); how many. */
  sweep?(isLive: (sessionId: string) => boolean | Promise<boolean>): Promise<number>;
  /** Sessions whose runtime is running now (containers, pods left by the service's previous life). */
  runningSessions?(): Promise<string[]>;
  /**
   * Told once what every session's runtime shares (container backends with a pool of pre-started
   * runtimes start filling it then).
   */
  warm?(template: RuntimeTemplate): Promise<void>;
  /** Releases the backend's own resources (API clients, pooled runtimes); session runtimes are left as they are. */
  close?(): Promise<void>;
}

/** What every session runtime of one service is started with, besides its session and workspace. */
export interface RuntimeTemplate {
  /** The directory of the sessions' workspace directories. */
  readonly workspacesDir: string;
  readonly quotaBytes: number;
  readonly readOnlyPaths: readonly string[];
  /** The ingress socket's directory, which every session runtime is shown (see RuntimeStart). */
  readonly ingressDir?: string;
}

/** Where a network session's egress proxy socket appears inside a container or pod: where bwrap binds it. */
export { SANDBOX_EGRESS_SOCKET as EGRESS_SOCKET_PATH } from './env.js';
export { SANDBOX_INGRESS_DIR } from './env.js';
