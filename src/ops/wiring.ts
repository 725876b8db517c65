// The operations subsystem's wiring: tracing, the metrics and the event loop's monitor, this process as
// a replica (its session leases), its capacity, and the sweeper that expires sessions. Each returns its
// parts with their lifecycle; src/services.ts composes them. What a part needs from a higher layer (the
// tool switches a replica follows, what to stop for a session another replica took) comes in as a
// function.
import os from 'node:os';
import type { Config, TelemetryConfig } from '../config.js';
import { forgetSession, sweepAll, type Lifecycle } from '../lib/lifecycle.js';
import type { ToolLogger } from '../lib/logger.js';
import type { CpuPool } from '../cpu/cpu-pool.js';
import type { JobManager } from '../jobs/job-manager.js';
import type { RuntimeManager } from '../runtime/manager.js';
import { LeaseStore } from '../store/leases.js';
import { SessionRouting } from '../store/session-routing.js';
import type { SessionStore } from '../store/sessions.js';
import type { SqlDatabase } from '../store/sql.js';
import { createCapacity, registerCapacityMetrics, type Capacity } from './capacity/index.js';
import { diskState } from './disk.js';
import { EventLoopMonitor } from './event-loop.js';
import type { Metrics, SessionUsageMetric } from './metrics.js';
import { SessionOwnership } from './session-ownership.js';
import type { Tracing } from './trace.js';
import { createTracing } from './tracing.js';

/** OpenTelemetry tracing (undefined when off); closed last, so spans of calls that ended closing go too. */
export function wireTracing(
  telemetry: TelemetryConfig,
  logger: ToolLogger,
): { tracing: Tracing | undefined; lifecycle: Lifecycle } {
  const tracing = createTracing(telemetry, logger);
  // Bounded, and never throws.
  return { tracing, lifecycle: { name: 'tracing', close: () => tracing?.shutdown() } };
}

/** What /metrics reads of each part, and the event loop's monitor (started here). */
export function wireMetrics(
  metrics: Metrics,
  dataDir: string,
  parts: { sessions: SessionStore; jobs: JobManager; runtimes: RuntimeManager; cpu: CpuPool },
): { eventLoop: EventLoopMonitor; lifecycle: Lifecycle } {
  const { jobs, runtimes, cpu } = parts;
  metrics.setSource('toolgate_active_sessions', () => parts.sessions.countActive());
  metrics.setSource('toolgate_running_jobs', () => jobs.runningCount());
  metrics.setRuntimeSource(() => runtimes.stats());
  metrics.setDiskSource(() => diskState(dataDir));
  const eventLoop = new EventLoopMonitor();
  eventLoop.start();
  metrics.setEventLoopSource(() => eventLoop.state());
  metrics.setCpuSource(() => ({ running: cpu.running, queued: cpu.queued }));
  // Log bytes of every session with jobs; workspace numbers of those whose runtime runs (none is started).
  metrics.setSessionUsageSource(async () => {
    const running = new Map(runtimes.running().map((runtime) => [runtime.sessionId, runtime]));
    const ids = new Set([...jobs.sessionsWithJobs(), ...running.keys()]);
    return Promise.all(
      [...ids].map(async (sessionId): Promise<SessionUsageMetric> => {
        const usage = await running
          .get(sessionId)
          ?.diskUsage()
          .catch(() => null);
        return {
          sessionId,
          logBytes: jobs.logBytes(sessionId),
          ...(usage ? { workspaceBytes: usage.bytes, workspaceFiles: usage.files } : {}),
        };
      }),
    );
  });
  return { eventLoop, lifecycle: { name: 'event-loop', close: () => eventLoop.stop() } };
}

export interface ReplicaServices {
  readonly ownership: SessionOwnership;
  readonly routing: SessionRouting;
}

/**
 * With replica config: its session leases (heartbeat started) and the routing reads, on the database
 * every store shares; undefined for the only process. `hooks.follow` keeps its tool switches in step with
 * the other replicas' (the policies' part) and answers how to stop.
 */
export function wireReplica(
  config: Pick<Config, 'replica'>,
  logger: ToolLogger,
  db: SqlDatabase,
  hooks: {
    /** Another replica took a session (this one missed its heartbeats): what runs for it here stops. */
    onLost: SessionOwnership['onLost'];
    /** A container runtime outlives the replica that held its session: the new holder attaches to it. */
    onGained: SessionOwnership['onGained'];
    follow: (everyMs: number) => () => void;
  },
): { replica: ReplicaServices | undefined; lifecycle: Lifecycle } {
  if (!config.replica) {
    return {
      replica: undefined,
      lifecycle: { name: 'leases', forgetSession: () => undefined, close: () => undefined },
    };
  }
  const { id, url, leaseMs, heartbeatMs } = config.replica;
  const ownership = new SessionOwnership(new LeaseStore(db), { id, url }, { leaseMs, heartbeatMs }, logger);
  ownership.onLost = hooks.onLost;
  ownership.onGained = hooks.onGained;
  ownership.start();
  const stopFollowing = hooks.follow(heartbeatMs);
  return {
    replica: { ownership, routing: new SessionRouting(db) },
    lifecycle: {
      name: 'leases',
      forgetSession: (sessionId) => ownership.release(sessionId),
      close: async () => {
        stopFollowing();
        await ownership.close();
      },
    },
  };
}

/** What this replica takes on: one replica holds every live session; one of several, those it owns. */
export function wireCapacity(
  config: Config,
  parts: {
    backendName: Parameters<typeof createCapacity>[1];
    runtimes: RuntimeManager;
    sessions: SessionStore;
    replica: ReplicaServices | undefined;
    metrics: Metrics;
  },
): Capacity {
  const { sessions, replica } = parts;
  const capacity = createCapacity(config, parts.backendName, os.totalmem(), parts.runtimes, {
    live: () => (replica ? Promise.resolve(replica.ownership.sessions().length) : sessions.countActive()),
    ofKey: (apiKey) => sessions.countActiveOfKey(apiKey),
  });
  registerCapacityMetrics(parts.metrics.registry, capacity);
  return capacity;
}

export interface Sweeper {
  /** Removes expired sessions (rows, then every part's share) and runs every part's sweep. */
  sweep(now?: number): Promise<{ sessions: number; auditRows: number }>;
  /** Deletes the session's row first, then every part forgets it, in list order. */
  deleteSession(id: string): Promise<boolean>;
  stop(): void;
}

/** Session deletion and the periodic sweep over the parts' lifecycles (list order), started here. */
export function startSweeper(
  parts: readonly Lifecycle[],
  sessions: SessionStore,
  { sweepIntervalSeconds }: Pick<Config['sessions'], 'sweepIntervalSeconds'>,
  logger: ToolLogger,
): Sweeper {
  const deleteSession = async (id: string): Promise<boolean> => {
    const existed = await sessions.delete(id);
    await forgetSession(parts, id);
    return existed;
  };
  const sweep = async (now = Date.now()) => {
    const expired = await sessions.expiredIds(now);
    for (const id of expired) await deleteSession(id);
    const swept = await sweepAll(parts, now);
    return { sessions: expired.length, auditRows: swept.get('audit') ?? 0 };
  };
  const timer = setInterval(() => {
    sweep().catch((err) => logger.error({ err }, 'session sweep failed'));
  }, sweepIntervalSeconds * 1000);
  timer.unref();
  return { sweep, deleteSession, stop: () => clearInterval(timer) };
}
