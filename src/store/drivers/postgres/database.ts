// SqlDatabase on PostgreSQL (node-postgres): what several replicas share. A pool of connections; a
// transaction takes one connection of its own for BEGIN … COMMIT, so other callers' statements go on
// beside it (READ COMMITTED: each statement sees what others committed before it began; a store that
// reads then writes a row guards it with an upsert or a conditional UPDATE, as on any shared database).
// Statements arrive in SQLite's parameter spelling and are rewritten here (./params.ts).
import pg from 'pg';
import type { SqlDatabase, SqlParams, SqlQueries, SqlRunResult } from '../../sql.js';
import { bindValues, ParameterCache } from './params.js';

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * The stores read integers as numbers, as SQLite gives them: BIGINT (COUNT(*), millisecond timestamps,
 * identity ids) and NUMERIC (SUM of BIGINT) come back as strings from node-postgres by default. Set on
 * this pool only: the process-wide `pg.types` is left alone for anyone else using pg. Past 2^53 a
 * number loses precision; no column the stores keep gets near that.
 */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID || oid === NUMERIC_OID
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export interface PostgresOptions {
  /** Connections in the pool (at least 2: applying migrations holds one for the lock). */
  readonly maxConnections?: number;
  /** How long to wait for a connection (a new one, or a free one of a full pool). */
  readonly connectTimeoutMs?: number;
  /** An idle connection failed (the server restarted, a network cut): the pool has dropped it already. */
  readonly onIdleError?: (err: Error) => void;
}

type Runner = pg.Pool | pg.PoolClient;

/**
 * node-postgres reports a lost or unobtainable connection ("Connection terminated unexpectedly", a pool
 * connect timeout) with no code; it gets POSTGRES_UNAVAILABLE, so the error mapping (src/lib/errors.ts)
 * answers 503 STORAGE_UNAVAILABLE for it as for a refused connection (errno) or a server fault (SQLSTATE).
 */
function coded(err: unknown): unknown {
  if (err instanceof Error && typeof (err as { code?: unknown }).code !== 'string') {
    Object.assign(err, { code: 'POSTGRES_UNAVAILABLE' });
  }
  return err;
}

/**
 * The connection itself failed (a socket error, or one coded above), so its state is unknown. A server
 * error (SQLSTATE) or the caller's own error inside a transaction leaves it usable once rolled back.
 */
const connectionFailed = (err: unknown): boolean =>
  (err as { code?: unknown })?.code === 'POSTGRES_UNAVAILABLE' ||
  typeof (err as { syscall?: unknown })?.syscall === 'string';

export class PostgresDatabase implements SqlDatabase {
  readonly dialect = 'postgres' as const;
  private readonly parameters = new ParameterCache();
  private readonly direct: SqlQueries;
  private closing: Promise<void> | undefined;

  constructor(
    /** The pool itself, for what only PostgreSQL has (advisory locks) and the tests. */
    readonly pool: pg.Pool,
  ) {
    this.direct = this.queriesOn(pool);
  }

  static open(url: string, options: PostgresOptions = {}): PostgresDatabase {
    const pool = new pg.Pool({
      connectionString: url,
      types: TYPES,
      max: Math.max(2, options.maxConnections ?? 10),
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      application_name: 'toolgate',
      // TCP keepalives find a connection a network cut left dead while it sat idle in the pool.
      keepAlive: true,
    });
    // Without a listener an idle connection's error (server restart) would crash the process; the pool
    // has already removed that connection, and the next statement opens a new one.
    pool.on('error', (err) => options.onIdleError?.(err));
    return new PostgresDatabase(pool);
  }

  private async query(runner: Runner, sql: string, params: SqlParams | undefined): Promise<pg.QueryResult> {
    const rewritten = this.parameters.get(sql);
    const values = bindValues(rewritten, params);
    try {
      return await runner.query({ text: rewritten.text, values });
    } catch (err) {
      throw coded(err);
    }
  }

  private queriesOn(runner: Runner): SqlQueries {
    return {
      all: async <Row>(sql: string, params?: SqlParams) =>
        (await this.query(runner, sql, params)).rows as Row[],
      get: async <Row>(sql: string, params?: SqlParams) =>
        (await this.query(runner, sql, params)).rows[0] as Row | undefined,
      run: async (sql: string, params?: SqlParams): Promise<SqlRunResult> => ({
        changes: (await this.query(runner, sql, params)).rowCount ?? 0,
      }),
    };
  }

  all<Row>(sql: string, params?: SqlParams): Promise<Row[]> {
    return this.direct.all<Row>(sql, params);
  }

  get<Row>(sql: string, params?: SqlParams): Promise<Row | undefined> {
    return this.direct.get<Row>(sql, params);
  }

  run(sql: string, params?: SqlParams): Promise<SqlRunResult> {
    return this.direct.run(sql, params);
  }

  /**
   * Runs `fn` on a connection taken from the pool for it alone, and gives the connection back; one whose
   * state is unknown (the connection failed, or `fn` says so) is closed instead.
   */
  async withConnection<T>(
    fn: (client: pg.PoolClient, discard: (reason: Error) => void) => Promise<T>,
  ): Promise<T> {
    const client = await this.pool.connect().catch((err: unknown) => Promise.reject(coded(err)));
    let broken: Error | undefined;
    // A connection lost while checked out is reported as an 'error' event, which the pool listens for
    // only on idle connections: unheard, it would crash the process. The statement in flight fails too.
    const onError = (err: Error) => (broken ??= err);
    client.on('error', onError);
    try {
      return await fn(client, (reason) => (broken ??= reason));
    } catch (err) {
      if (connectionFailed(err)) broken ??= err as Error;
      throw err;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  transaction<T>(fn: (tx: SqlQueries) => Promise<T>): Promise<T> {
    return this.withConnection(async (client, discard) => {
      await client.query('BEGIN');
      try {
        const result = await fn(this.queriesOn(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        // After a failed COMMIT the server has rolled back already (ROLLBACK then only warns). A failed
        // ROLLBACK leaves the connection mid-transaction: it must not go back to the pool.
        await client.query('ROLLBACK').catch(discard);
        throw err;
      }
    });
  }

  async exec(sql: string): Promise<void> {
    // No values: node-postgres sends the text as one simple query, which may hold several statements.
    await this.pool.query(sql);
  }

  async checkWritable(): Promise<void> {
    await this.withConnection(async (client, discard) => {
      // READ WRITE fails at BEGIN on a standby or under default_transaction_read_only; no lock is taken.
      await client.query('BEGIN READ WRITE');
      try {
        const { rows } = await client.query<{ recovery: boolean }>('SELECT pg_is_in_recovery() AS recovery');
        if (rows[0]?.recovery !== false) {
          throw new Error('PostgreSQL is in recovery (a standby): it takes no writes');
        }
      } finally {
        await client.query('ROLLBACK').catch(discard);
      }
    });
  }

  /** Ends the pool once (a second call waits for the first): pg refuses a second end. */
  close(): Promise<void> {
    this.closing ??= this.pool.end();
    return this.closing;
  }
}
