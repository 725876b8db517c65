// The one interface every store speaks to its database through, whichever engine is behind it: SQLite
// (embedded, the default: nothing else must run for `npm start`) or PostgreSQL (several replicas share
// it). Stores write their SQL once, in the dialect both engines accept; the drivers under ./drivers/
// make up the differences that are mechanical (parameter spelling, column types in DDL). Everything is
// asynchronous because PostgreSQL is; the SQLite driver answers from the same turn's synchronous call.

/** A value a statement binds: Buffers are BLOB / BYTEA; booleans are stored as 0/1 by the stores. */
export type SqlValue = string | number | bigint | Buffer | null;

/**
 * A statement's parameters, in SQLite's spelling: `?` positional (an array) or `@name` (an object whose
 * keys have no `@`). The PostgreSQL driver rewrites both to `$n`. Keep `?` and `@` out of string
 * literals in SQL text: bind such values instead.
 */
export type SqlParams = readonly SqlValue[] | Readonly<Record<string, SqlValue | undefined>>;

export interface SqlRunResult {
  /** Rows the statement inserted, updated or deleted. */
  readonly changes: number;
}

/** What a store can do with a database, inside a transaction or not. */
export interface SqlQueries {
  /** Every row the query returns (columns as named in the SQL; integers as numbers, blobs as Buffers). */
  all<Row>(sql: string, params?: SqlParams): Promise<Row[]>;
  /** The first row, or undefined. */
  get<Row>(sql: string, params?: SqlParams): Promise<Row | undefined>;
  /** A statement that returns no rows (use `all` with RETURNING for those that do). */
  run(sql: string, params?: SqlParams): Promise<SqlRunResult>;
}

export type SqlDialect = 'sqlite' | 'postgres';

export interface SqlDatabase extends SqlQueries {
  readonly dialect: SqlDialect;
  /**
   * Runs `fn` in one transaction: committed when its promise resolves, rolled back when it rejects (the
   * rejection is passed on). Use only `tx` inside: on SQLite other callers' statements wait until the
   * transaction ends (one connection), on PostgreSQL `tx` is a connection of its own.
   */
  transaction<T>(fn: (tx: SqlQueries) => Promise<T>): Promise<T>;
  /** Several statements separated by `;`, no parameters (migrations, tests). */
  exec(sql: string): Promise<void>;
  /** Throws, with the engine's reason, when the database cannot take a write now (readiness). */
  checkWritable(): Promise<void>;
  close(): Promise<void>;
}

export interface Migration {
  /** Unique and stable: `<owner>_<nnnn>_<what>`; applied once, in list order. */
  readonly name: string;
  /**
   * The DDL, written for SQLite. The PostgreSQL driver applies it after a mechanical translation
   * (INTEGER → BIGINT, REAL → DOUBLE PRECISION, BLOB → BYTEA, `INTEGER PRIMARY KEY AUTOINCREMENT` → an
   * identity column); where that does not fit, `postgres` is the text it applies instead.
   */
  readonly sql: string;
  readonly postgres?: string;
}
