// The audit log: one row per tool call (including refused ones). A row is appended to a journal file
// (one write(2), no fsync) before the response is sent, so an acknowledged call survives a process crash;
// rows reach the database in batches a few milliseconds later — one commit for many calls, since the
// commit, not the insert, is what costs. On start (AuditStore.open), rows a crash left in the journal are
// recovered.
import { closeSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { Migration, SqlDatabase, SqlQueries, SqlValue } from './sql.js';

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

/** The columns of an audit row as the insert binds them, in order. */
const INSERT_COLUMNS = `call_id, ts, session_id, tool, category, status, error_code, http_status, duration_ms,
  bytes_in, bytes_out, caller, entry_point, input_summary, journal_key, attempts, duplicate, decided_by,
  reason, wire_tool`;
const COLUMN_COUNT = 20;
/** Rows per INSERT: one statement for many rows (one round trip on PostgreSQL), well below either
 * engine's bound on parameters per statement. */
const ROWS_PER_INSERT = 100;

/** `(?, …, ?), …` for `rows` rows; texts for each row count are built once. */
const valuesText = new Map<number, string>();
const insertText = (rows: number): string => {
  let text = valuesText.get(rows);
  if (!text) {
    const row = `(${new Array<string>(COLUMN_COUNT).fill('?').join(', ')})`;
    // DO NOTHING without a target: a row whose journal key is in already (recovery's replay) is skipped.
    text = `INSERT INTO audit (${INSERT_COLUMNS}) VALUES ${new Array<string>(rows).fill(row).join(', ')}
      ON CONFLICT DO NOTHING`;
    valuesText.set(rows, text);
  }
  return text;
};

/** Inserts `rows` in statements of up to ROWS_PER_INSERT rows (inside the caller's transaction). */
async function insertRows(tx: SqlQueries, rows: readonly JournaledEntry[]): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const chunk = rows.slice(start, start + ROWS_PER_INSERT);
    // Positional parameters: every call's row passes here, and binding by name looks each one up.
    const params: SqlValue[] = [];
    for (const row of chunk) {
      params.push(
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
    await tx.run(insertText(chunk.length), params);
  }
}

export class AuditStore {
  private readonly journal: number;
  private readonly keyPrefix = randomBytes(6).toString('base64url');
  private sequence = 0;
  private pending: JournaledEntry[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** Bytes in the journal file (it is emptied after each commit that leaves nothing pending). */
  private journalBytes = 0;
  private journalFailures = 0;
  /** The commit under way: flushes run one at a time (a second waits, then commits what is left). */
  private flushing: Promise<void> | undefined;

  /** Rows recordBeforeAnswer took this turn, not yet in the journal, and the promise their write settles. */
  private turnLines: string[] = [];
  /** How many of those are not held in memory (it was at its cap): the journal is their only copy. */
  private turnOverflow = 0;
  private turnWritten: Promise<void> | undefined;
  private settleTurn: (() => void) | undefined;

  /** Some journaled rows are only in the journal (memory was at its cap): the next commit re-reads it. */
  private spilled = false;
  private rowsDropped = 0;

  /** Commits the rows a crash left in the journal, then opens the store on it. */
  static async open(db: SqlDatabase, journalPath: string, maxPendingRows?: number): Promise<AuditStore> {
    await AuditStore.recover(db, journalPath);
    return new AuditStore(db, journalPath, maxPendingRows);
  }

  private constructor(
    private readonly db: SqlDatabase,
    private readonly journalPath: string,
    /**
     * Rows held in memory for the next commit. While the database cannot commit (a full disk), rows past
     * this wait in the journal only; rows neither can take are dropped and counted (droppedRows).
     */
    private readonly maxPendingRows = 100_000,
  ) {
    // O_APPEND: after the journal is truncated, the next write lands at its start again.
    this.journal = openSync(journalPath, 'a', 0o600);
  }

  /** Commits `rows` in one transaction. */
  private insertBatch(rows: readonly JournaledEntry[]): Promise<void> {
    return AuditStore.insertBatch(this.db, rows);
  }

  private static async insertBatch(db: SqlDatabase, rows: readonly JournaledEntry[]): Promise<void> {
    if (rows.length === 0) return;
    await db.transaction((tx) => insertRows(tx, rows));
  }

  /** Every row in the journal file (a torn line is dropped: its call was never acknowledged). */
  private static journalRows(journalPath: string): JournaledEntry[] {
    let text: string;
    try {
      text = readFileSync(journalPath, 'utf8');
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
  private static async recover(db: SqlDatabase, journalPath: string): Promise<void> {
    await AuditStore.insertBatch(db, AuditStore.journalRows(journalPath));
    try {
      const fd = openSync(journalPath, 'r+');
      ftruncateSync(fd, 0);
      closeSync(fd);
    } catch {
      // no journal yet
    }
  }

  /**
   * Durable against a process crash when it returns; committed to the database shortly after. On a full or
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
    this.flush().catch(() => {
      this.timer ??= setTimeout(() => this.flushInBackground(), RETRY_DELAY_MS);
      this.timer.unref();
    });
  }

  /**
   * Commits every pending row now; readers call it first so they see every acknowledged call. One
   * commit at a time: a flush asked for while one runs waits for it, then commits the rows left.
   */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing.catch(() => undefined);
    const commit = this.commitPending();
    this.flushing = commit;
    try {
      await commit;
    } finally {
      if (this.flushing === commit) this.flushing = undefined;
    }
  }

  private async commitPending(): Promise<void> {
    // This turn's rows go to the journal first: a row past the memory cap has no other copy.
    this.writeTurn();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0 && !this.spilled) return;
    // The batch is taken out of `pending`: rows recorded while it commits go to a new list. Only a
    // committed batch leaves the journal; a failed one goes back in front of them and is retried.
    const batch = this.pending;
    this.pending = [];
    try {
      await this.insertBatch(batch);
    } catch (err) {
      this.pending = batch.concat(this.pending);
      if (this.pending.length > this.maxPendingRows) {
        // Past the cap the newest rows wait in the journal only, as recording them would have done.
        this.pending.length = this.maxPendingRows;
        this.spilled = true;
      }
      throw err;
    }
    if (this.spilled) {
      // Rows that waited in the journal only: commit all of it (rows already in are ignored by key).
      this.spilled = false;
      try {
        await this.insertBatch(AuditStore.journalRows(this.journalPath));
      } catch (err) {
        this.spilled = true;
        throw err;
      }
    }
    if (this.pending.length === 0 && !this.spilled && this.turnLines.length === 0) {
      ftruncateSync(this.journal, 0);
      this.journalBytes = 0;
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    try {
      await this.flush();
    } catch {
      // Rows that cannot be committed now stay in the journal; the next start commits them.
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    closeSync(this.journal);
  }

  async query(query: AuditQuery): Promise<AuditRow[]> {
    await this.flush();
    const { where, params } = auditFilter(query);
    // Statements built from a fixed set of clauses: the driver keeps each text's statement.
    const rows = await this.db.all<RawAuditRow>(
      `SELECT * FROM audit ${where} ORDER BY id DESC LIMIT @limit`,
      { ...params, limit: query.limit },
    );
    return rows.map(fromRow);
  }

  /** Deletes rows older than the retention window; returns how many went. */
  async deleteOlderThan(ts: number): Promise<number> {
    await this.flush();
    return (await this.db.run('DELETE FROM audit WHERE ts < ?', [ts])).changes;
  }
}
