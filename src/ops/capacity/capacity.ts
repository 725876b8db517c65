// How much one replica takes on, and the one place that says no: a new session is admitted against the
// live-session limit and the host's free memory and process ids; a runtime start against the
// running-runtime limit and the same host floors. Before a start or a create is refused for runtimes or
// memory, idle runtimes are stopped, least recently used first (their sessions stay and start again on
// their next call). A refusal is 503 CAPACITY_EXHAUSTED with Retry-After, naming the limit, so a balancer
// or a client goes elsewhere before the kernel's OOM killer chooses what dies.
import { toolgateError, type ToolgateError } from '../../lib/errors.js';
import { KeyedLock } from '../../lib/keyed-lock.js';
import type { RuntimeManager } from '../../runtime/manager.js';
import type { SessionRuntime } from '../../runtime/session-runtime.js';
import type { DiskState } from '../disk.js';
import type { HostResources } from './host.js';

export type CapacityLimitName = 'sessions' | 'runtimes' | 'memory' | 'pids' | 'disk';
/** The limits that refuse (the data disk is only reported). */
type RefusingLimit = Exclude<CapacityLimitName, 'disk'>;

/** One limit as used and allowed, in the same unit: full when `used >= limit`. */
export interface CapacityLimitState {
  used: number;
  limit: number;
  full: boolean;
  unit: 'sessions' | 'runtimes' | 'bytes' | 'tasks';
}

export type CapacityReport = Record<CapacityLimitName, CapacityLimitState>;

export interface CapacityLimits {
  readonly maxSessions: number;
  readonly maxRuntimes: number;
  readonly minAvailableMemoryBytes: number;
  readonly minFreePids: number;
  readonly minFreeDiskBytes: number;
  readonly retryAfterSeconds: number;
  /** Named API keys' quotas of live sessions (config apiKeys). */
  readonly keyQuotas: Readonly<Record<string, number>>;
}

export interface CapacitySources {
  /** Live sessions this replica holds (all of them on one replica; those it owns with several). */
  sessions(): Promise<number>;
  /** Live sessions of a named API key, on every replica (its quota is the key's, not the replica's). */
  sessionsOfKey(apiKey: string): Promise<number>;
  host(): Promise<HostResources>;
  disk(): Promise<DiskState>;
}

const limitState = (used: number, limit: number, unit: CapacityLimitState['unit']): CapacityLimitState => ({
  used,
  limit: Math.max(0, limit),
  full: used >= limit,
  unit,
});

/** Host floors as used/limit pairs: memory and tasks in use against what may be used before the floor. */
function hostStates(host: HostResources, limits: CapacityLimits): Pick<CapacityReport, 'memory' | 'pids'> {
  return {
    memory: limitState(
      host.totalMemoryBytes - host.availableMemoryBytes,
      host.totalMemoryBytes - limits.minAvailableMemoryBytes,
      'bytes',
    ),
    pids: limitState(host.tasks, host.maxTasks - limits.minFreePids, 'tasks'),
  };
}

const WHAT: Record<RefusingLimit, (state: CapacityLimitState) => string> = {
  sessions: (s) => `this replica holds its limit of ${s.limit} live sessions`,
  runtimes: (s) => `this replica runs its limit of ${s.limit} session runtimes, none of them idle`,
  memory: (s) =>
    `the host's available memory is below its floor (${Math.round((s.used - s.limit) / 2 ** 20)} MiB short)`,
  pids: (s) => `the host has fewer free process ids than its floor (${s.used} tasks of ${s.limit} allowed)`,
};

/** The config key of each limit, for the operator. */
const SETTING: Record<RefusingLimit, string> = {
  sessions: 'capacity.maxSessions (TOOLGATE_MAX_SESSIONS)',
  runtimes: 'capacity.maxRuntimes (TOOLGATE_MAX_RUNTIMES)',
  memory: 'capacity.minAvailableMemoryBytes',
  pids: 'capacity.minFreePids',
};

export class Capacity {
  private refusedCount: Partial<Record<RefusingLimit, number>> = {};
  /** Between a create's check and its row, no other create: a burst cannot pass the limit together. */
  private readonly creating = new KeyedLock();

  constructor(
    readonly limits: CapacityLimits,
    private readonly runtimes: RuntimeManager,
    private readonly sources: CapacitySources,
  ) {}

  /** Refusals so far, by limit (for /metrics). */
  get refusals(): Readonly<Partial<Record<CapacityLimitName, number>>> {
    return this.refusedCount;
  }

  /** Every limit with its use now; stops nothing (for /readyz, /metrics, GET /v1/capacity). */
  async report(): Promise<CapacityReport> {
    const [sessions, host, disk] = await Promise.all([
      this.sources.sessions(),
      this.sources.host(),
      this.sources.disk(),
    ]);
    const runtimes = this.runtimes.inUse().length;
    const { maxSessions, maxRuntimes } = this.limits;
    // Runtimes, memory and pids are full only when no runtime is idle: an idle one is stopped to make room.
    const roomByStopping = this.runtimes.leastRecentlyIdle().length > 0;
    const onHost = hostStates(host, this.limits);
    return {
      sessions: { used: sessions, limit: maxSessions, full: sessions >= maxSessions, unit: 'sessions' },
      runtimes: {
        used: runtimes,
        limit: maxRuntimes,
        full: runtimes >= maxRuntimes && !roomByStopping,
        unit: 'runtimes',
      },
      memory: { ...onHost.memory, full: onHost.memory.full && !roomByStopping },
      pids: { ...onHost.pids, full: onHost.pids.full && !roomByStopping },
      // Reported, never a refusal here: /readyz's disk check covers the floor, and a write that finds no
      // room (a create's included) answers 507 INSUFFICIENT_STORAGE with nothing written half.
      disk: {
        ...limitState(
          disk.totalBytes - disk.freeBytes,
          disk.totalBytes - this.limits.minFreeDiskBytes,
          'bytes',
        ),
        full: false,
      },
    };
  }

  /** The limits that stop a new session now, per report (what /readyz calls full). */
  static fullLimits(report: CapacityReport): CapacityLimitName[] {
    return (Object.keys(report) as CapacityLimitName[]).filter((name) => report[name].full);
  }

  /**
   * Admits a session create and runs `create` (the row's insert) before the next create is admitted: the
   * count a check reads includes every session admitted before it, on this replica.
   */
  admitting<T>(apiKey: string | null | undefined, create: () => Promise<T>): Promise<T> {
    return this.creating.run(['create'], async () => {
      await this.admitSession(apiKey);
      return create();
    });
  }

  /**
   * Before a session is created for a caller (a named API key, or undefined for the admin key): 429
   * KEY_QUOTA_EXCEEDED when the key holds its quota, else CAPACITY_EXHAUSTED naming the limit when the
   * replica cannot take it.
   */
  async admitSession(apiKey?: string | null): Promise<void> {
    const quota = apiKey ? this.limits.keyQuotas[apiKey] : undefined;
    if (apiKey && quota !== undefined) {
      const held = await this.sources.sessionsOfKey(apiKey);
      if (held >= quota) {
        const retryAfter = this.limits.retryAfterSeconds;
        throw toolgateError(
          'KEY_QUOTA_EXCEEDED',
          `API key "${apiKey}" holds its quota of ${quota} live sessions`,
          {
            suggestion: `Delete sessions of this key you no longer need (or let them expire), then retry.`,
            details: { apiKey, used: held, max: quota },
            headers: { 'Retry-After': String(retryAfter) },
          },
        );
      }
    }
    const sessions = await this.sources.sessions();
    if (sessions >= this.limits.maxSessions) {
      throw this.refuse('sessions', {
        used: sessions,
        limit: this.limits.maxSessions,
        full: true,
        unit: 'sessions',
      });
    }
    await this.admitOnHost(undefined);
  }

  /** Before a runtime starts (RuntimeManager.admission): room among runtimes, then on the host. */
  async admitRuntime(starting: SessionRuntime): Promise<void> {
    const { maxRuntimes } = this.limits;
    const others = () => this.runtimes.inUse().filter((runtime) => runtime !== starting).length;
    while (others() >= maxRuntimes) {
      if (!(await this.stopOneIdle(starting))) {
        throw this.refuse('runtimes', { used: others(), limit: maxRuntimes, full: true, unit: 'runtimes' });
      }
    }
    await this.admitOnHost(starting);
  }

  /** Memory and pids, made room for by stopping idle runtimes. */
  private async admitOnHost(starting: SessionRuntime | undefined): Promise<void> {
    for (;;) {
      // Only the host's memory and tasks decide here: no statfs on a runtime start's path.
      const states = hostStates(await this.sources.host(), this.limits);
      const short = states.memory.full ? 'memory' : states.pids.full ? 'pids' : undefined;
      if (!short) return;
      if (!(await this.stopOneIdle(starting))) throw this.refuse(short, states[short]);
    }
  }

  /** Stops the least recently used idle runtime (never the one starting); false when there is none. */
  private async stopOneIdle(starting: SessionRuntime | undefined): Promise<boolean> {
    const victim = this.runtimes.leastRecentlyIdle().find((runtime) => runtime !== starting);
    if (!victim) return false;
    await victim.stop();
    return true;
  }

  private refuse(limit: RefusingLimit, state: CapacityLimitState): ToolgateError {
    this.refusedCount[limit] = (this.refusedCount[limit] ?? 0) + 1;
    const retryAfter = this.limits.retryAfterSeconds;
    return toolgateError('CAPACITY_EXHAUSTED', `No capacity: ${WHAT[limit](state)}`, {
      suggestion:
        limit === 'sessions'
          ? `Delete sessions you no longer need, or retry in ${retryAfter} s or on another replica.`
          : `Retry in ${retryAfter} s or on another replica; the operator sets this limit as ${SETTING[limit]}.`,
      details: { limit, used: state.used, max: state.limit },
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
}
