// SqlDatabase on SQLite (better-sqlite3): the embedded default. One connection; each statement's text is
// prepared once and kept. better-sqlite3 is synchronous, so a statement runs to completion in the call
// that asked for it; only a transaction spans turns of the event loop, and while one is open every
// other caller's statement waits for it to end (they would otherwise land inside it).
import type BetterSqlite3 from 'better-sqlite3';
import { Database } from '../../sqlite-driver.js';
import type { SqlDatabase, SqlParams, SqlQueries, SqlRunResult } from '../../sql.js';

type Statement = BetterSqlite3.Statement<unknown[], unknown>;

/** better-sqlite3 binds an array's items positionally and an object's keys by name; undefined is NULL. */
const bindable = (params: SqlParams | undefined): unknown[] => {
  if (params === undefined) return [];
  if (Array.isArray(params)) return params as unknown[];
  const named: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) named[key] = value === undefined ? null : value;
  return [named];
};

export interface SqliteOptions {
  /** Statements kept prepared (texts built from varying clauses would otherwise grow the cache). */
  readonly statementCacheSize?: number;
}

export class SqliteDatabase implements SqlDatabase {
  readonly dialect = 'sqlite' as const;
  private readonly statements = new Map<string, Statement>();
  /** Settles when the open transaction ends; undefined when none is open. */
  private transactionDone: Promise<void> | undefined;
  private readonly direct: SqlQueries;

  constructor(
    /** The connection itself, for what only SQLite has (pragmas, backups) and the sync tests. */
    readonly handle: BetterSqlite3.Database,
    private readonly options: SqliteOptions = {},
  ) {
    this.direct = {
      all: async <Row>(sql: string, params?: SqlParams) =>
        this.statement(sql).all(...bindable(params)) as Row[],
      get: async <Row>(sql: string, params?: SqlParams) =>
        this.statement(sql).get(...bindable(params)) as Row | undefined,
      run: async (sql: string, params?: SqlParams): Promise<SqlRunResult> => ({
        changes: this.statement(sql).run(...bindable(params)).changes,
      }),
    };
  }

  /** Opens (creating) the file with WAL, foreign keys and a busy timeout. */
  static open(file: string, options?: SqliteOptions): SqliteDatabase {
    const handle = new Database(file);
    handle.pragma('journal_mode = WAL');
    // NORMAL in WAL mode survives a process crash (kill -9) with every committed transaction; only an OS
    // crash can lose the last ones. That is the trade we want for per-call audit rows.
    handle.pragma('synchronous = NORMAL');
    handle.pragma('foreign_keys = ON');
    handle.pragma('busy_timeout = 5000');
    return new SqliteDatabase(handle, options);
  }

  private statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.handle.prepare(sql);
      if (this.statements.size >= (this.options.statementCacheSize ?? 500)) this.statements.clear();
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Resolves once no transaction is open (looping: another may have begun while this one waited). */
  private async outsideTransaction(): Promise<void> {
    while (this.transactionDone) await this.transactionDone;
  }

  async all<Row>(sql: string, params?: SqlParams): Promise<Row[]> {
    if (this.transactionDone) await this.outsideTransaction();
    return this.direct.all<Row>(sql, params);
  }

  async get<Row>(sql: string, params?: SqlParams): Promise<Row | undefined> {
    if (this.transactionDone) await this.outsideTransaction();
    return this.direct.get<Row>(sql, params);
  }

  async run(sql: string, params?: SqlParams): Promise<SqlRunResult> {
    if (this.transactionDone) await this.outsideTransaction();
    return this.direct.run(sql, params);
  }

  async transaction<T>(fn: (tx: SqlQueries) => Promise<T>): Promise<T> {
    // Inline, not outsideTransaction(): with none open, the claim below happens in this very call, so a
    // statement asked for after it (in the same turn) waits for the transaction instead of running first.
    while (this.transactionDone) await this.transactionDone;
    let end!: () => void;
    this.transactionDone = new Promise<void>((resolve) => (end = resolve));
    try {
      // IMMEDIATE: take the write lock now, so another process's writer makes this wait (busy_timeout)
      // at BEGIN rather than fail at the first write with SQLITE_BUSY.
      this.handle.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(this.direct);
        this.handle.exec('COMMIT');
        return result;
      } catch (err) {
        if (this.handle.inTransaction) this.handle.exec('ROLLBACK');
        throw err;
      }
    } finally {
      this.transactionDone = undefined;
      end();
    }
  }

  async exec(sql: string): Promise<void> {
    await this.outsideTransaction();
    this.handle.exec(sql);
  }

  async checkWritable(): Promise<void> {
    await this.outsideTransaction();
    // BEGIN IMMEDIATE takes the write lock: proves the database is writable without writing a row.
    this.handle.exec('BEGIN IMMEDIATE');
    this.handle.exec('ROLLBACK');
  }

  async close(): Promise<void> {
    await this.outsideTransaction();
    this.statements.clear();
    this.handle.close();
  }
}
