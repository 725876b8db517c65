// Session owner leases: which replica holds a session's runtime now, and until when. Several replicas
// share this table (PostgreSQL, or one SQLite file several local processes open); every change of
// owner is one conditional statement, so two replicas can never both hold a session: an insert that
// does nothing when a row exists, or an update whose WHERE names the row as the writer last saw it
// (compare-and-set). Written against the asynchronous SqlDatabase in the SQL both engines accept.
import type { Migration, SqlDatabase } from './sql.js';

export const leaseMigrations: Migration[] = [
  {
    name: 'leases_0001_create',
    sql: `
      CREATE TABLE session_leases (
        session_id TEXT PRIMARY KEY,
        replica_id TEXT NOT NULL,
        replica_url TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        acquired_at INTEGER NOT NULL
      );
      CREATE INDEX session_leases_replica ON session_leases (replica_id);
    `,
  },
];

/** A replica as the others see it. */
export interface ReplicaIdentity {
  readonly id: string;
  /** Base URL the other replicas forward to (no trailing slash). */
  readonly url: string;
}

export interface Lease {
  readonly sessionId: string;
  readonly replicaId: string;
  readonly replicaUrl: string;
  /** Epoch ms; past it, any replica may take the session over. */
  readonly expiresAt: number;
}

interface LeaseRow {
  session_id: string;
  replica_id: string;
  replica_url: string;
  expires_at: number | string;
}

// PostgreSQL returns BIGINT as a string through some drivers: numbers are made here, once.
const leaseOf = (row: LeaseRow): Lease => ({
  sessionId: row.session_id,
  replicaId: row.replica_id,
  replicaUrl: row.replica_url,
  expiresAt: Number(row.expires_at),
});

const SELECT = 'SELECT session_id, replica_id, replica_url, expires_at FROM session_leases';

export class LeaseStore {
  constructor(private readonly db: SqlDatabase) {}

  async get(sessionId: string): Promise<Lease | undefined> {
    const row = await this.db.get<LeaseRow>(`${SELECT} WHERE session_id = ?`, [sessionId]);
    return row && leaseOf(row);
  }

  /**
   * Takes the session for `self` when nobody holds it, when `self` already does, or when the holder's
   * lease has lapsed; otherwise leaves it. Answers the lease as it stands afterwards.
   */
  async acquire(sessionId: string, self: ReplicaIdentity, leaseMs: number, now = Date.now()): Promise<Lease> {
    const params = { sessionId, id: self.id, url: self.url, expiresAt: now + leaseMs, now };
    const inserted = await this.db.run(
      `INSERT INTO session_leases (session_id, replica_id, replica_url, expires_at, acquired_at)
       VALUES (@sessionId, @id, @url, @expiresAt, @now) ON CONFLICT (session_id) DO NOTHING`,
      params,
    );
    if (inserted.changes === 1)
      return { sessionId, replicaId: self.id, replicaUrl: self.url, expiresAt: now + leaseMs };
    const updated = await this.db.run(
      `UPDATE session_leases SET replica_id = @id, replica_url = @url, expires_at = @expiresAt,
         acquired_at = CASE WHEN replica_id = @id THEN acquired_at ELSE @now END
       WHERE session_id = @sessionId AND (replica_id = @id OR expires_at <= @now)`,
      params,
    );
    if (updated.changes === 1)
      return { sessionId, replicaId: self.id, replicaUrl: self.url, expiresAt: now + leaseMs };
    const current = await this.get(sessionId);
    // Released between the two statements: one more round settles it.
    return current ?? this.acquire(sessionId, self, leaseMs, now);
  }

  /**
   * Takes over a lease whose holder cannot be reached, though its lease has not lapsed: only if the row
   * is still exactly the one `seen` (same holder, same expiry: the holder has not renewed since).
   */
  async takeOver(seen: Lease, self: ReplicaIdentity, leaseMs: number, now = Date.now()): Promise<boolean> {
    const { changes } = await this.db.run(
      `UPDATE session_leases SET replica_id = @id, replica_url = @url, expires_at = @expiresAt, acquired_at = @now
       WHERE session_id = @sessionId AND replica_id = @seenId AND expires_at = @seenExpiresAt`,
      {
        id: self.id,
        url: self.url,
        expiresAt: now + leaseMs,
        now,
        sessionId: seen.sessionId,
        seenId: seen.replicaId,
        seenExpiresAt: seen.expiresAt,
      },
    );
    return changes === 1;
  }

  /** The heartbeat: extends every lease `replicaId` still holds; answers the sessions it holds. */
  async renewAll(replicaId: string, leaseMs: number, now = Date.now()): Promise<Set<string>> {
    await this.db.run('UPDATE session_leases SET expires_at = ? WHERE replica_id = ?', [
      now + leaseMs,
      replicaId,
    ]);
    const rows = await this.db.all<{ session_id: string }>(
      'SELECT session_id FROM session_leases WHERE replica_id = ?',
      [replicaId],
    );
    return new Set(rows.map((row) => row.session_id));
  }

  /** Lets go of one session (deleted), if `replicaId` still holds it. */
  async release(sessionId: string, replicaId: string): Promise<void> {
    await this.db.run('DELETE FROM session_leases WHERE session_id = ? AND replica_id = ?', [
      sessionId,
      replicaId,
    ]);
  }

  /** Lets go of everything `replicaId` holds (a clean shutdown: the others take over at once). */
  async releaseAll(replicaId: string): Promise<number> {
    return (await this.db.run('DELETE FROM session_leases WHERE replica_id = ?', [replicaId])).changes;
  }

  /** Every lease (the console and tests). */
  async list(): Promise<Lease[]> {
    return (await this.db.all<LeaseRow>(`${SELECT} ORDER BY session_id`)).map(leaseOf);
  }
}
