// The audit log: one row per tool call (including refused ones). A row is appended to a journal file
// (one write(2), no fsync) before the response is sent, so an acknowledged call survives a process crash;
// rows reach SQLite in batches a few milliseconds later — one commit for many calls, since the commit,
// not the insert, is what costs. On start, rows left in the journal by a crash are recovered.
import { closeSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
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
  {
    // A row's journal key makes recovery idempotent: a crash between commit and journal truncation
    // replays rows that are already in the table, and they are ignored.
    name: 'audit_0002_journal_key',
    sql: `
      ALTER TABLE audit ADD COLUMN journal_key TEXT;
      CREATE UNIQUE INDEX audit_journal_key ON audit (journal_key);
    `,
  },
  {
    // Every index is written on every call; filtering by tool alone is rare and served well enough by
    // scanning newest-first (audit) or the session index (stats of one session).
    name: 'audit_0003_drop_tool_index',
    sql: 'DROP INDEX IF EXISTS audit_tool;',
  },
  {
    // How many times the pipeline ran the tool (retries of a retryable tool), and whether the call was
    // answered from an identical earlier call of its batch or turn.
    name: 'audit_0004_attempts_duplicate',
    sql: `
      ALTER TABLE audit ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1;
      ALTER TABLE audit ADD COLUMN duplicate INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    // A parked call's final row (denied, expired) says who decided and why.
    name: 'audit_0005_decision',
    sql: `
      ALTER TABLE audit ADD COLUMN decided_by TEXT;
      ALTER TABLE audit ADD COLUMN reason TEXT;
    `,
  },
  {
    // The vendor's built-in tool the model called when it is not ours by name (an OpenAI Responses
    // shell_call or apply_patch_call, Anthropic's text editor or bash): the row's tool is what ran.
    name: 'audit_0006_wire_tool',
    sql: 'ALTER TABLE audit ADD COLUMN wire_tool TEXT;',
  },
];

/**
 * How long rows wait in the journal before they are committed together. Readers of the audit and the
 * stats commit what is pending first, so the delay is never visible to them; a longer one means fewer,
 * larger commits (each commit rewrites the table's and its indexes' last pages in the WAL).
 */
const FLUSH_DELAY_MS = 200;
/** How soon a commit that failed (a full or busy database) is tried again. */
const RETRY_DELAY_MS = 1000;
const FLUSH_BATCH = 500;

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
  /** Runs of the tool, retries included (1 when it ran once; absent: 1). */
  attempts?: number;
  /** Answered from an identical earlier call of the same batch or turn. */
  duplicate?: boolean;
  /** A parked call's final row: who decided (`admin`, or `expiry` when nobody did in time). */
  decidedBy?: string | null;
  /** A parked call's final row: the reason the operator gave. */
  reason?: string | null;
  /** The vendor's tool the model called, when not ours by name (e.g. "anthropic:bash"). */
  wireTool?: string;
}

/** A row as the journal holds it: with its key (absent in rows journaled before keys existed). */
type JournaledEntry = AuditEntry & { journalKey?: string };

export interface AuditQuery {
  sessionId?: string;
  tool?: string;
  status?: AuditStatus;
  since?: number;
  until?: number;
  limit: number;
  /** Rows with id below this (newest first). */
  beforeId?: number;
  /** Include operators' reads of sessions (entry point `operator`); left out by default. */
  operatorReads?: boolean;
}

export interface AuditRow extends Omit<AuditEntry, 'wireTool'> {
  id: number;
  attempts: number;
  duplicate: boolean;
  decidedBy: string | null;
  reason: string | null;
  wireTool: string | null;
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
  attempts: number;
  duplicate: number;
  decided_by: string | null;
  reason: string | null;
  wire_tool: string | null;
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
  attempts: row.attempts,
  duplicate: row.duplicate === 1,
  decidedBy: row.decided_by,
  reason: row.reason,
  wireTool: row.wire_tool ?? null,
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
  if (query.operatorReads === false) clauses.push(`entry_point != 'operator'`);
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

export class AuditStore {
  private readonly insertBatch;
  private readonly purge;
  private readonly journal: number;
  private readonly keyPrefix = randomBytes(6).toString('base64url');
  private sequence = 0;
  private pending: JournaledEntry[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** Bytes in the journal file (it is emptied after each commit that leaves nothing pending). */
  private journalBytes = 0;
  private journalFailures = 0;

  /** Rows recordBeforeAnswer took this turn, not yet in the journal, and the promise their write settles. */
  private turnLines: string[] = [];
  /** How many of those are not held in memory (it was at its cap): the journal is their only copy. */
  private turnOverflow = 0;
  private turnWritten: Promise<void> | undefined;
  private settleTurn: (() => void) | undefined;

  /** Some journaled rows are only in the journal (memory was at its cap): the next commit re-reads it. */
  private spilled = false;
  private rowsDropped = 0;

  constructor(
    private readonly db: Db,
    private readonly journalPath: string,
    /**
     * Rows held in memory for the next commit. While SQLite cannot commit (a full disk), rows past this
     * wait in the journal only; rows neither can take are dropped and counted (droppedRows).
     */
    private readonly maxPendingRows = 100_000,
  ) {
    const insert = db.prepare(
      `INSERT OR IGNORE INTO audit (call_id, ts, session_id, tool, category, status, error_code, http_status,
         duration_ms, bytes_in, bytes_out, caller, entry_point, input_summary, journal_key,
         attempts, duplicate, decided_by, reason, wire_tool)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    // Positional parameters: every call's row passes here, and binding by name looks each one up (and
    // needed a copy of the row for the two columns that are stored differently).
    this.insertBatch = db.transaction((rows: JournaledEntry[]) => {
      for (const row of rows) {
        insert.run(
          row.callId,
          row.ts,
          row.sessionId,
          row.tool,
          row.category,
          row.status,
          row.errorCode,
          row.httpStatus,
          row.durationMs,
          row.bytesIn,
          row.bytesOut,
          row.caller,
          row.entryPoint,
          row.inputSummary,
          row.journalKey ?? null,
          row.attempts ?? 1,
          row.duplicate === true ? 1 : 0,
          row.decidedBy ?? null,
          row.reason ?? null,
          row.wireTool ?? null,
        );
      }
    });
    this.purge = db.prepare('DELETE FROM audit WHERE ts < ?');
    this.recover();
    // O_APPEND: after the journal is truncated, the next write lands at its start again.
    this.journal = openSync(journalPath, 'a', 0o600);
  }

  /** Every row in the journal file (a torn line is dropped: its call was never acknowledged). */
  private journalRows(): JournaledEntry[] {
    let text: string;
    try {
      text = readFileSync(this.journalPath, 'utf8');
    } catch {
      return [];
    }
    const rows: JournaledEntry[] = [];
    for (const line of text.split('\n')) {
      try {
        if (line) rows.push(JSON.parse(line));
      } catch {
        // torn write at the moment of a crash
      }
    }
    return rows;
  }

  /** Rows a crash left in the journal are committed before anything else. */
  private recover(): void {
    const rows = this.journalRows();
    if (rows.length) this.insertBatch(rows);
    try {
      const fd = openSync(this.journalPath, 'r+');
      ftruncateSync(fd, 0);
      closeSync(fd);
    } catch {
      // no journal yet
    }
  }

  /**
   * Durable against a process crash when it returns; committed to SQLite shortly after. On a full or
   * failing disk the journal cannot take the row: it is kept in memory and committed with the next
   * commit that succeeds (only a crash before then would lose it). The call it records still succeeds.
   * The store keeps `entry` itself as the row (adding its journal key): pass a fresh object.
   */
  record(entry: AuditEntry): void {
    const row = this.keyed(entry);
    this.hold(row, this.appendToJournal(`${JSON.stringify(row)}\n`));
  }

  /**
   * Like record, but the row reaches the journal with every other row recorded this way in the same turn
   * of the event loop, in one write(2) (in the check phase, after the turn's I/O callbacks). The promise
   * settles once it is there: the pipeline answers a call only then, so an acknowledged call is still
   * durable against a crash, and under load many calls share a system call.
   */
  recordBeforeAnswer(entry: AuditEntry): Promise<void> {
    const row = this.keyed(entry);
    this.turnLines.push(`${JSON.stringify(row)}\n`);
    if (this.pending.length < this.maxPendingRows) this.pending.push(row);
    else this.turnOverflow++;
    const written = (this.turnWritten ??= new Promise<void>((resolve) => {
      this.settleTurn = resolve;
      setImmediate(this.writeTurn);
    }));
    this.scheduleCommit();
    return written;
  }

  /** The entry becomes the store's row, with its journal key added (not copied: once per call). */
  private keyed(entry: AuditEntry): JournaledEntry {
    const row: JournaledEntry = entry;
    row.journalKey = `${this.keyPrefix}:${this.sequence++}`;
    return row;
  }

  /** Keeps a row for the next commit; past the memory cap it waits in the journal only. */
  private hold(row: JournaledEntry, journaled: boolean): void {
    if (this.pending.length < this.maxPendingRows) this.pending.push(row);
    else if (journaled) this.spilled = true;
    else this.rowsDropped++;
    this.scheduleCommit();
  }

  private scheduleCommit(): void {
    if (this.pending.length >= FLUSH_BATCH) this.flushInBackground();
    else this.timer ??= setTimeout(() => this.flushInBackground(), FLUSH_DELAY_MS);
  }

  /** Writes this turn's rows (recordBeforeAnswer) to the journal and lets their calls be answered. */
  private readonly writeTurn = (): void => {
    if (!this.settleTurn) return;
    const lines = this.turnLines.join('');
    const overflow = this.turnOverflow;
    const settle = this.settleTurn;
    this.turnLines = [];
    this.turnOverflow = 0;
    this.turnWritten = undefined;
    this.settleTurn = undefined;
    const journaled = this.appendToJournal(lines);
    if (overflow > 0) {
      if (journaled) this.spilled = true;
      else this.rowsDropped += overflow;
    }
    settle();
  };

  /** True when the whole line reached the journal. */
  private appendToJournal(line: string): boolean {
    // The string is written as is (no Buffer made for it): this runs once per call.
    const length = Buffer.byteLength(line);
    let written = 0;
    try {
      written = writeSync(this.journal, line);
    } catch {
      // nothing was written
    }
    if (written === length) {
      this.journalBytes += written;
      return true;
    }
    this.journalFailures++;
    if (written > 0) {
      // A torn line would swallow the next row at recovery: cut it off.
      try {
        ftruncateSync(this.journal, this.journalBytes);
      } catch {
        // Recovery drops a line it cannot parse; the row itself is still in memory.
      }
    }
    return false;
  }

  /** Rows lost since the start because neither memory (at its cap) nor the journal could hold them. */
  get droppedRows(): number {
    return this.rowsDropped;
  }

  /** Rows the journal could not take since the start (a full or failing disk); for metrics and logs. */
  get unjournaledRows(): number {
    return this.journalFailures;
  }

  /**
   * The timer's flush: a full or busy database must not stop the service from a timer callback. The
   * rows stay in the journal (they are durable there) and in `pending`, and the commit is retried.
   */
  private flushInBackground(): void {
    try {
      this.flush();
    } catch {
      this.timer ??= setTimeout(() => this.flushInBackground(), RETRY_DELAY_MS);
      this.timer.unref();
    }
  }

  /** Commits every pending row now; readers call it first so they see every acknowledged call. */
  flush(): void {
    // This turn's rows go to the journal first: a row past the memory cap has no other copy.
    this.writeTurn();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0 && !this.spilled) return;
    const batch = this.pending;
    // Only a committed batch leaves the journal and the pending list: a failed commit is retried.
    this.insertBatch(batch);
    this.pending = this.pending.slice(batch.length);
    if (this.spilled) {
      // Rows that waited in the journal only: commit all of it (rows already in are ignored by key).
      this.insertBatch(this.journalRows());
      this.spilled = false;
    }
    if (this.pending.length === 0) {
      ftruncateSync(this.journal, 0);
      this.journalBytes = 0;
    }
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    try {
      this.flush();
    } catch {
      // Rows that cannot be committed now stay in the journal; the next start commits them.
    }
    closeSync(this.journal);
  }

  query(query: AuditQuery): AuditRow[] {
    this.flush();
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
    this.flush();
    return this.purge.run(ts).changes;
  }
}
