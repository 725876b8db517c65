// Which sessions this replica owns, kept true against the shared lease table: a session is claimed when
// this replica first serves it, every owned lease is renewed by one heartbeat, and a lease found taken
// by another replica (this one missed its beats) is let go of at once — its runtime stopped here, so two
// replicas never run one session's commands. Without replica config this class is never made.
import type { ToolLogger } from '../lib/logger.js';
import type { Lease, LeaseStore, ReplicaIdentity } from '../store/leases.js';

export interface OwnershipOptions {
  readonly leaseMs: number;
  readonly heartbeatMs: number;
}

/** Where a session's requests are served: here, or at the replica holding its lease. */
export type Route = { readonly here: true } | { readonly here: false; readonly lease: Lease };

export class SessionOwnership {
  private readonly owned = new Set<string>();
  /** When the last heartbeat that reached the database began: owned leases hold until this + leaseMs. */
  private renewedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  /** Called for each session whose lease another replica took; stops what this replica runs for it. */
  onLost: (sessionId: string) => Promise<void> = async () => undefined;
  /**
   * Called, synchronously, when a session becomes this replica's (its first serving, or taken from
   * another): a runtime that outlived its previous owner (containers) is attached again from here.
   */
  onGained: (sessionId: string) => void = () => undefined;

  private gain(sessionId: string): void {
    if (this.owned.has(sessionId)) return;
    this.owned.add(sessionId);
    this.onGained(sessionId);
  }

  constructor(
    private readonly store: LeaseStore,
    readonly self: ReplicaIdentity,
    private readonly options: OwnershipOptions,
    private readonly logger: ToolLogger,
  ) {}

  start(): void {
    this.renewedAt = Date.now();
    this.timer = setInterval(() => {
      this.beating ??= this.heartbeat().finally(() => (this.beating = undefined));
    }, this.options.heartbeatMs);
    this.timer.unref();
  }

  /** Whether this replica holds `sessionId` as far as it knows (no database read). */
  holds(sessionId: string): boolean {
    return this.owned.has(sessionId);
  }

  /** Sessions this replica holds now. */
  sessions(): string[] {
    return [...this.owned];
  }

  /**
   * Where to serve `sessionId`. Owned and renewed within a beat: here, without asking the database (the
   * common case behind a balancer that hashes the session id). Else the lease decides: free or lapsed
   * leases are taken.
   */
  async route(sessionId: string, now = Date.now()): Promise<Route> {
    // A margin of one beat: a lease about to lapse is confirmed in the database before it is relied on.
    if (this.owned.has(sessionId) && now < this.renewedAt + this.options.leaseMs - this.options.heartbeatMs) {
      return { here: true };
    }
    const lease = await this.store.acquire(sessionId, this.self, this.options.leaseMs, now);
    if (lease.replicaId === this.self.id) {
      this.gain(sessionId);
      return { here: true };
    }
    this.owned.delete(sessionId);
    return { here: false, lease };
  }

  /** The holder of `seen` cannot be reached: take the session if its lease is unchanged since. */
  async takeOver(seen: Lease): Promise<boolean> {
    const taken = await this.store.takeOver(seen, this.self, this.options.leaseMs);
    if (taken) {
      this.gain(seen.sessionId);
      this.logger.warn(
        { sessionId: seen.sessionId, from: seen.replicaId },
        'took a session over from a replica that does not answer',
      );
    }
    return taken;
  }

  /** The session is gone (deleted, expired): its lease goes too. */
  async release(sessionId: string): Promise<void> {
    this.owned.delete(sessionId);
    await this.store.release(sessionId, this.self.id);
  }

  private async heartbeat(): Promise<void> {
    const startedAt = Date.now();
    let held: Set<string>;
    try {
      held = await this.store.renewAll(this.self.id, this.options.leaseMs, startedAt);
    } catch (err) {
      // The fast path in route() stops trusting the leases once renewedAt is a lease old.
      this.logger.warn({ err }, 'could not renew session leases');
      return;
    }
    this.renewedAt = startedAt;
    for (const sessionId of [...this.owned]) {
      if (held.has(sessionId)) continue;
      this.owned.delete(sessionId);
      this.logger.warn({ sessionId }, 'another replica took this session over; its runtime stops here');
      await this.onLost(sessionId).catch((err: unknown) =>
        this.logger.error(
          { err, sessionId },
          'could not stop the runtime of a session lost to another replica',
        ),
      );
    }
  }

  /** Stops the heartbeat and hands every session back (the others take them over at once). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.beating;
    this.owned.clear();
    await this.store.releaseAll(this.self.id).catch((err: unknown) => {
      this.logger.warn({ err }, 'could not release session leases; they lapse on their own');
    });
  }
}
