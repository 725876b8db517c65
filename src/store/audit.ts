// The audit log: one row per tool call (including refused ones), committed before the response is sent
// so an acknowledged call is never missing after a crash. Rows that arrive in the same event-loop turn
// share one transaction (group commit): the commit, not the insert, is what costs.
import type { Db, Migration } from './db.js';

export const auditMigrations: Migration[] = [
  {
    name: 'audit_0001_create',
    sql: `
      CREATE TABLE audit (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        call_id TEXT NOT NULL,
        ts INTEGER NOT NULL,
        session_id TEXT,
        tool TEXT NOT NULL,
        category TEXT,
        status TEXT NOT NULL,
        error_code TEXT,
        http_status INTEGER NOT NULL,
        duration_ms REAL NOT NULL,
        bytes_in INTEGER NOT NULL,
        bytes_out INTEGER NOT NULL,
        caller TEXT NOT NULL,
        entry_point TEXT NOT NULL,
        input_summary TEXT NOT NULL
      );
      CREATE INDEX audit_session ON audit (session_id, id);
      CREATE INDEX audit_tool ON audit (tool, id);
      CREATE INDEX audit_ts ON audit (ts);
    `,
  },
];

export type AuditStatus = 'success' | 'error' | 'refused' | 'pending';

export interface AuditEntry {
  callId: string;
  ts: number;
  sessionId: string | null;
  tool: string;
  category: string | null;
  status: AuditStatus;
  errorCode: string | null;
  httpStatus: number;
  durationMs: number;
  bytesIn: number;
  bytesOut: number;
  /** Who called: `admin` or `session`. */
  caller: string;
  /** Which entry point: rest, batch, mcp. */
  entryPoint: string;
  inputSummary: string;
}

export interface AuditQuery {
  sessionId?: string;
  tool?: string;
  status?: AuditStatus;
  since?: number;
  until?: number;
  limit: number;
  /** Rows with id below this (newest first). */
  beforeId?: number;
}

export interface AuditRow extends AuditEntry {
  id: number;
}

interface RawAuditRow {
  id: number;
  call_id: string;
  ts: number;
  session_id: string | null;
  tool: string;
  category: string | null;
  status: AuditStatus;
  error_code: string | null;
  http_status: number;
  duration_ms: number;
  bytes_in: number;
  bytes_out: number;
  caller: string;
  entry_point: string;
  input_summary: string;
}

const fromRow = (row: RawAuditRow): AuditRow => ({
  id: row.id,
  callId: row.call_id,
  ts: row.ts,
  sessionId: row.session_id,
  tool: row.tool,
  category: row.category,
  status: row.status,
  errorCode: row.error_code,
  httpStatus: row.http_status,
  durationMs: row.duration_ms,
  bytesIn: row.bytes_in,
  bytesOut: row.bytes_out,
  caller: row.caller,
  entryPoint: row.entry_point,
  inputSummary: row.input_summary,
});

/** WHERE clause and parameters shared by the audit listing and the stats queries. */
export function auditFilter(query: Omit<AuditQuery, 'limit' | 'beforeId'> & { beforeId?: number }): {
  where: string;
  params: Record<string, string | number>;
} {
  const clauses: string[] = [];
  const params: Record<string, string | number> = {};
  const columns = [
    ['sessionId', 'session_id = @sessionId'],
    ['tool', 'tool = @tool'],
    ['status', 'status = @status'],
    ['since', 'ts >= @since'],
    ['until', 'ts < @until'],
    ['beforeId', 'id < @beforeId'],
  ] as const;
  for (const [key, clause] of columns) {
    const value = query[key];
    if (value === undefined) continue;
    clauses.push(clause);
    params[key] = value;
  }
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

export class AuditStore {
  private readonly insert;
  private readonly insertBatch;
  private readonly purge;
  private pending: AuditEntry[] = [];
  private scheduled: Promise<void> | null = null;

  constructor(private readonly db: Db) {
    this.insert = db.prepare(
      `INSERT INTO audit (call_id, ts, session_id, tool, category, status, error_code, http_status, duration_ms,
         bytes_in, bytes_out, caller, entry_point, input_summary)
       VALUES (@callId, @ts, @sessionId, @tool, @category, @status, @errorCode, @httpStatus, @durationMs,
         @bytesIn, @bytesOut, @caller, @entryPoint, @inputSummary)`,
    );
    this.insertBatch = db.transaction((rows: AuditEntry[]) => {
      for (const row of rows) this.insert.run(row);
    });
    this.purge = db.prepare('DELETE FROM audit WHERE ts < ?');
  }

  /** Resolves once the row is committed. */
  record(entry: AuditEntry): Promise<void> {
    this.pending.push(entry);
    this.scheduled ??= new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        try {
          this.flush();
          resolve();
        } catch (err) {
          reject(err);
        }
      });
    });
    return this.scheduled;
  }

  /** Commits every pending row now (also called before the database closes). */
  flush(): void {
    const batch = this.pending;
    this.pending = [];
    this.scheduled = null;
    if (batch.length) this.insertBatch(batch);
  }

  query(query: AuditQuery): AuditRow[] {
    const { where, params } = auditFilter(query);
    // Statements built from a fixed set of clauses; better-sqlite3 caches nothing across prepare calls,
    // but preparing is cheap next to a listing.
    const rows = this.db
      .prepare(`SELECT * FROM audit ${where} ORDER BY id DESC LIMIT @limit`)
      .all({ ...params, limit: query.limit }) as RawAuditRow[];
    return rows.map(fromRow);
  }

  /** Deletes rows older than the retention window; returns how many went. */
  deleteOlderThan(ts: number): number {
    return this.purge.run(ts).changes;
  }
}
