// All session runtimes of one app: one per live session, created on its first workspace operation,
// stopped when idle, on session delete and at shutdown. Counts starts, restarts and crashes for /metrics.
import path from 'node:path';
import type { ToolLogger } from '../lib/logger.js';
import type { Tracing } from '../ops/trace.js';
import type { PidsCgroups } from './runner/cgroup.js';
import type { SessionCpuGroups } from './runner/cpu-cgroup.js';
import type { OverlayMount, RuntimeBackend } from './backends/types.js';
import { SessionRuntime, type EgressLease } from './session-runtime.js';
import type { NetworkPolicy } from '../config.js';

/**
 * Opens a session's egress socket under a policy (network/egress.ts), for its runtime's lifetime. Stable:
 * at the same path at every start (a session's own runtime on a backend whose runtimes outlive the
 * service: the container keeps the path it was made with, and finds the new socket there).
 */
export type EgressProvider = (
  sessionId: string,
  policy: NetworkPolicy,
  openRanges: readonly string[],
  stable: boolean,
) => Promise<EgressLease>;

export interface RuntimeCounters {
  live: number;
  starts: number;
  restarts: number;
  crashes: number;
  /** Cold start of the last runtimes, in ms (most recent last, bounded). */
  coldStartsMs: number[];
}

export interface RuntimeManagerOptions {
  readonly workspacesDir: string;
  readonly idleMs: number;
  readonly hangMs: number;
  readonly quotaBytes: number;
  /** Host directories the sandbox shows read-only at the same path (tool folders, MCP server packages). */
  readonly readOnlyPaths?: readonly string[];
  /** The overlay a forked session's workspace is made of (undefined: a plain directory). */
  readonly overlayFor?: (sessionId: string) => OverlayMount | undefined;
  readonly cgroups?: PidsCgroups;
  /** The sessions' cpu cgroups (bwrap, none): each runtime starts in one of its own. */
  readonly cpuGroups?: SessionCpuGroups;
  /** Host directory of the ingress socket (src/preview/ingress.ts), shown to every session runtime. */
  readonly ingressDir?: string;
  readonly logger: ToolLogger;
  readonly tracing?: Tracing;
}

const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Finds a live session's row (a database read); undefined when it is gone. */
type SessionLookup = (
  sessionId: string,
) => Promise<{ id: string; permissions: readonly string[]; image?: string | null } | undefined>;

export class RuntimeManager {
  private readonly runtimes = new Map<string, SessionRuntime>();
  private readonly counters = { starts: 0, restarts: 0, crashes: 0, coldStartsMs: [] as number[] };
  private closing = false;
  /** Set once the egress proxy exists (it needs the stores made after the runtimes); unset: no network. */
  egress: EgressProvider | undefined;
  /** The start's re-attach pass: listing the running runtimes, then each session's (see reattached). */
  private listing: Promise<void> | undefined;
  private readonly reattaching = new Map<string, Promise<void>>();
  /**
   * Asked before a runtime starts (the replica's capacity, ops/capacity): throws when there is no room,
   * after stopping idle runtimes (leastRecentlyIdle) if that makes room. Unset: every start is admitted.
   */
  admission: ((starting: SessionRuntime) => Promise<void>) | undefined;
  /** Takes over the commands a re-attached runtime kept (the job manager's adopt), once it exists. */
  onReattach: ((runtime: SessionRuntime) => Promise<void>) | undefined;

  constructor(
    readonly backend: RuntimeBackend,
    private readonly options: RuntimeManagerOptions,
  ) {}

  /** The sessions' cpu cgroups, when this host has them (the CPU pool's threads join them too). */
  get cpuGroups(): SessionCpuGroups | undefined {
    return this.options.cpuGroups;
  }

  /** How a runtime reaches out: through an egress socket under the policy, or not at all. */
  private egressOpener(
    sessionId: string,
    policy: NetworkPolicy | undefined,
    openRanges: readonly string[] = [],
    transient = false,
  ) {
    if (policy === undefined || policy.mode === 'off') return undefined;
    const stable = this.backend.persistent === true && !transient;
    return () => {
      if (!this.egress) return Promise.resolve(undefined);
      return this.egress(sessionId, policy, openRanges, stable);
    };
  }

  /** The session's runtime handle (not started until used); its network is the session's policy. */
  for(session: { id: string; network?: NetworkPolicy; image?: string | null }): SessionRuntime {
    let runtime = this.runtimes.get(session.id);
    if (runtime) return runtime;
    if (!SESSION_ID.test(session.id)) throw new Error(`invalid session id for a runtime: ${session.id}`);
    const { logger } = this.options;
    runtime = new SessionRuntime(
      session.id,
      path.join(this.options.workspacesDir, session.id),
      this.egressOpener(session.id, session.network),
      this.backend,
      {
        idleMs: this.options.idleMs,
        hangMs: this.options.hangMs,
        quotaBytes: this.options.quotaBytes,
        readOnlyPaths: this.options.readOnlyPaths,
        overlay: () => this.options.overlayFor?.(session.id),
        cgroups: this.options.cgroups,
        cpuGroups: this.options.cpuGroups,
        tracing: this.options.tracing,
        image: session.image ?? undefined,
        admit: (): Promise<void> => this.admission?.(runtime!) ?? Promise.resolve(),
        ingressDir: this.options.ingressDir,
      },
      {
        started: (sessionId, ms) => {
          const first = this.runtimes.get(sessionId)?.starts === 1;
          this.counters.starts++;
          if (!first) this.counters.restarts++;
          this.counters.coldStartsMs.push(ms);
          if (this.counters.coldStartsMs.length > 256) this.counters.coldStartsMs.shift();
        },
        crashed: (sessionId, reason) => {
          if (this.closing) return;
          this.counters.crashes++;
          logger.warn(
            { sessionId, reason },
            'session runtime exited unexpectedly; it restarts on the next call',
          );
        },
        stderr: (sessionId, line) => logger.debug({ sessionId, line: line.slice(0, 500) }, 'runtime stderr'),
        reattached: (reattached) => this.onReattach?.(reattached) ?? Promise.resolve(),
      },
    );
    this.runtimes.set(session.id, runtime);
    return runtime;
  }

  /**
   * A separate runtime over the session's workspace for one step that needs more than the session's own
   * (a network policy of its own, a read-only host directory), e.g. cloning its source; it is stopped
   * when `work` ends.
   */
  async oneShot<T>(
    session: { id: string; image?: string | null },
    options: { network?: NetworkPolicy; openRanges?: readonly string[]; readOnlyPaths?: readonly string[] },
    work: (runtime: SessionRuntime) => Promise<T>,
  ): Promise<T> {
    if (!SESSION_ID.test(session.id)) throw new Error(`invalid session id for a runtime: ${session.id}`);
    const { logger } = this.options;
    const runtime: SessionRuntime = new SessionRuntime(
      session.id,
      path.join(this.options.workspacesDir, session.id),
      this.egressOpener(session.id, options.network, options.openRanges, true),
      this.backend,
      {
        idleMs: this.options.idleMs,
        hangMs: this.options.hangMs,
        quotaBytes: this.options.quotaBytes,
        readOnlyPaths: [...(this.options.readOnlyPaths ?? []), ...(options.readOnlyPaths ?? [])],
        overlay: () => this.options.overlayFor?.(session.id),
        image: session.image ?? undefined,
        transient: true,
        cpuGroups: this.options.cpuGroups,
        admit: (): Promise<void> => this.admission?.(runtime) ?? Promise.resolve(),
      },
      {
        started: () => undefined,
        crashed: (sessionId, reason) =>
          logger.warn({ sessionId, reason }, 'one-shot runtime exited unexpectedly'),
        stderr: (sessionId, line) => logger.debug({ sessionId, line: line.slice(0, 500) }, 'runtime stderr'),
      },
    );
    try {
      return await work(runtime);
    } finally {
      await runtime.stop();
    }
  }

  /** The runtimes that are running now (none is started by asking). */
  running(): SessionRuntime[] {
    return [...this.runtimes.values()].filter((runtime) => runtime.state === 'running');
  }

  /** Runtimes running or starting (what a start counts against the replica's limit), one-shots aside. */
  inUse(): SessionRuntime[] {
    return [...this.runtimes.values()].filter((runtime) => runtime.state !== 'stopped');
  }

  /**
   * The running runtimes with no work in flight, least recently used first: the order in which they are
   * stopped to make room (their sessions stay; the next call starts them again).
   */
  leastRecentlyIdle(): SessionRuntime[] {
    return this.running()
      .filter((runtime) => !runtime.busy)
      .sort((a, b) => a.lastActivity - b.lastActivity);
  }

  get(sessionId: string): SessionRuntime | undefined {
    return this.runtimes.get(sessionId);
  }

  stats(): RuntimeCounters {
    let live = 0;
    for (const runtime of this.runtimes.values()) if (runtime.state === 'running') live++;
    return { live, ...this.counters, coldStartsMs: [...this.counters.coldStartsMs] };
  }

  /**
   * Session deleted: empty its workspace from inside, then stop the runtime for good. An overlay
   * workspace is not emptied (that would write a whiteout per file): its layers are removed once the
   * runtime, and with it the mount, is gone.
   */
  async remove(sessionId: string): Promise<void> {
    const runtime = this.runtimes.get(sessionId);
    this.runtimes.delete(sessionId);
    if (!runtime) return;
    const overlay = this.options.overlayFor?.(sessionId) !== undefined;
    if (runtime.state === 'running' && !overlay) await runtime.call('clear', {}).catch(() => undefined);
    await runtime.stop();
    await this.backend.discard?.(sessionId);
  }

  /**
   * Re-attaches, in the background, to the runtimes that outlived the service's previous life (container
   * backends), so their jobs are adopted (onReattach) without waiting for the session's next call.
   */
  reattachRunning(sessionOf: SessionLookup): void {
    const list = this.backend.runningSessions?.();
    if (!list) return;
    this.listing = list
      .then((ids) => {
        // One after another; each session's own promise says when its jobs are adopted (reattached).
        let chain = Promise.resolve();
        for (const id of ids) {
          chain = chain.then(() => this.attachKept(id, sessionOf));
          this.trackReattach(id, chain);
        }
      })
      .catch((err: unknown) =>
        this.options.logger.warn({ err }, 'could not list running runtimes to re-attach'),
      );
  }

  /**
   * A session this replica just took from another (replicas, container backends): its runtime outlived
   * the replica that held it, so it is attached again now and its jobs adopted; job tools wait for it
   * (reattached) instead of answering "no such job". Registered before this returns.
   */
  reattachSession(sessionId: string, sessionOf: SessionLookup): void {
    if (!this.backend.persistent || this.closing) return;
    this.trackReattach(sessionId, this.attachKept(sessionId, sessionOf));
  }

  /** Starts (attaches) the session's runtime; a session that is gone is skipped, a failure ignored. */
  private async attachKept(id: string, sessionOf: SessionLookup): Promise<void> {
    // The session is looked up too (a database read): one that is gone is skipped.
    const session = await sessionOf(id).catch(() => undefined);
    if (session && !this.closing)
      await this.for(session)
        .call('ping', {})
        .then(
          () => undefined,
          () => undefined,
        );
  }

  private trackReattach(id: string, done: Promise<void>): void {
    this.reattaching.set(
      id,
      done.finally(() => {
        if (this.reattaching.get(id) === done) this.reattaching.delete(id);
      }),
    );
  }

  /**
   * Resolves once the start's re-attach pass is done with the session (at once when it has nothing of
   * it): its jobs from the previous life are adopted by then, so a job tool right after a restart finds
   * them instead of answering "no such job".
   */
  async reattached(sessionId: string): Promise<void> {
    await this.listing;
    await this.reattaching.get(sessionId);
  }

  /** Lets the backend prepare runtimes ahead (the docker backend's pool), in the background. */
  warm(): void {
    const { workspacesDir, quotaBytes, readOnlyPaths = [], ingressDir } = this.options;
    this.backend
      .warm?.({ workspacesDir, quotaBytes, readOnlyPaths, ...(ingressDir ? { ingressDir } : {}) })
      .catch((err: unknown) => this.options.logger.warn({ err }, 'could not start the runtime pool'));
  }

  /** Removes the runtimes (containers, pods) of sessions that are not live; backends without any: 0. */
  async sweep(isLive: (sessionId: string) => Promise<boolean>): Promise<number> {
    if (!this.backend.sweep) return 0;
    return this.backend.sweep((id) => this.runtimes.has(id) || isLive(id));
  }

  /** Stops every runtime, or, where runtimes outlive the service (containers), lets go of them. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.runtimes.values()].map((runtime) => runtime.detach()));
    this.runtimes.clear();
    await this.backend.close?.();
  }
}
