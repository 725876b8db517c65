// Stored outcomes of tool calls made with an Idempotency-Key, per session, until they expire.
import type { Migration, SqlDatabase } from '../../store/sql.js';

export const idempotencyMigrations: Migration[] = [
  {
    name: 'idempotency_0001_create',
    sql: `
      CREATE TABLE idempotency_keys (
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        outcome TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (session_id, key)
      );
      CREATE INDEX idempotency_expires_at ON idempotency_keys (expires_at);
    `,
  },
];

/** What a replay needs: the data of a success, or the error of a failure. */
export type StoredOutcome =
  | { ok: true; dataJson: string }
  | {
      ok: false;
      error: { code: string; message: string; suggestion?: string; details?: Record<string, unknown> };
    };

export interface StoredCall {
  requestHash: string;
  outcome: StoredOutcome;
}

export class IdempotencyStore {
  constructor(private readonly db: SqlDatabase) {}

  async get(sessionId: string, key: string, now = Date.now()): Promise<StoredCall | undefined> {
    const row = await this.db.get<{ request_hash: string; outcome: string }>(
      'SELECT request_hash, outcome FROM idempotency_keys WHERE session_id = ? AND key = ? AND expires_at > ?',
      [sessionId, key, now],
    );
    return row && { requestHash: row.request_hash, outcome: JSON.parse(row.outcome) };
  }

  async put(
    sessionId: string,
    key: string,
    requestHash: string,
    outcome: StoredOutcome,
    ttlMs: number,
    now = Date.now(),
  ): Promise<void> {
    // An expired row for the same key is simply overwritten.
    await this.db.run(
      `INSERT INTO idempotency_keys (session_id, key, request_hash, outcome, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (session_id, key) DO UPDATE SET request_hash = excluded.request_hash,
         outcome = excluded.outcome, created_at = excluded.created_at, expires_at = excluded.expires_at`,
      [sessionId, key, requestHash, JSON.stringify(outcome), now, now + ttlMs],
    );
  }

  async deleteExpired(now = Date.now()): Promise<number> {
    return (await this.db.run('DELETE FROM idempotency_keys WHERE expires_at <= ?', [now])).changes;
  }
}
