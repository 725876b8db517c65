// A database for a store test, opened the way the service opens one (openSqlDatabase, migrations
// applied): SQLite in a temp dir, or PostgreSQL in a fresh schema of the test server. The engine is the
// run's (the `postgres` vitest project runs the store tests on PostgreSQL) unless the test names one.
import type { Migration, SqlDatabase } from '../../src/store/sql.js';
import { openSqlDatabase } from '../../src/store/open.js';
import { tempDir } from './app.js';
import { freshSchema, onPostgres } from './postgres.js';

export type Engine = 'sqlite' | 'postgres';

export interface TestDatabase {
  readonly db: SqlDatabase;
  readonly engine: Engine;
  /** What openSqlDatabase was given: another opener (a second replica) opens the same database with it. */
  readonly choice: { dataDir: string; url?: string };
  /** Closes the database and removes it (its temp dir, or its schema). */
  remove(): Promise<void>;
}

/** The engine of this run: postgres in the `postgres` project, else sqlite. */
export const runEngine = (): Engine => (onPostgres() ? 'postgres' : 'sqlite');

export async function openTestDatabase(
  migrations: readonly Migration[] = [],
  engine: Engine = runEngine(),
): Promise<TestDatabase> {
  const dataDir = tempDir('toolgate-db-');
  const schema = engine === 'postgres' ? await freshSchema() : undefined;
  const choice = { dataDir, ...(schema ? { url: schema.url } : {}) };
  let db: SqlDatabase;
  try {
    db = await openSqlDatabase(choice, migrations);
  } catch (err) {
    await schema?.drop();
    throw err;
  }
  return {
    db,
    engine,
    choice,
    async remove() {
      await db.close();
      await schema?.drop();
    },
  };
}
