// Stored outcomes of tool calls made with an Idempotency-Key, per session, until they expire.
import type { Db, Migration } from '../../store/db.js';

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
  private readonly select;
  private readonly upsert;
  private readonly purge;

  constructor(db: Db) {
    this.select = db.prepare(
      'SELECT request_hash, outcome FROM idempotency_keys WHERE session_id = ? AND key = ? AND expires_at > ?',
    );
    // REPLACE: an expired row for the same key is simply overwritten.
    this.upsert = db.prepare(
      `INSERT OR REPLACE INTO idempotency_keys (session_id, key, request_hash, outcome, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    );
    this.purge = db.prepare('DELETE FROM idempotency_keys WHERE expires_at <= ?');
  }

  get(sessionId: string, key: string, now = Date.now()): StoredCall | undefined {
    const row = this.select.get(sessionId, key, now) as { request_hash: string; outcome: string } | undefined;
    return row && { requestHash: row.request_hash, outcome: JSON.parse(row.outcome) };
  }

  put(
    sessionId: string,
    key: string,
    requestHash: string,
    outcome: StoredOutcome,
    ttlMs: number,
    now = Date.now(),
  ): void {
    this.upsert.run(sessionId, key, requestHash, JSON.stringify(outcome), now, now + ttlMs);
  }

  deleteExpired(now = Date.now()): number {
    return this.purge.run(now).changes;
  }
}
