// Chooses and opens the database every store shares: SQLite in the data dir (the embedded default), or
// PostgreSQL when the operator gives a postgres:// URL (DATABASE_URL or the config file); then applies
// the migrations. A driver is imported only when chosen, so the other engine's package is never loaded.
import path from 'node:path';
import type { Migration, SqlDatabase } from './sql.js';
import { applyMigrations } from './migrate.js';
import { loadPostgres } from './drivers/postgres/load.js';

export interface DatabaseChoice {
  readonly dataDir: string;
  /** postgres://… (or postgresql://…); undefined: SQLite at <dataDir>/toolgate.db. */
  readonly url?: string;
}

/** The URL schemes that choose PostgreSQL (config.ts accepts only these). */
export const isPostgresUrl = (url: string): boolean => /^postgres(?:ql)?:\/\//i.test(url);

export async function openSqlDatabase(
  choice: DatabaseChoice,
  migrations: readonly Migration[],
): Promise<SqlDatabase> {
  if (choice.url !== undefined) {
    if (!isPostgresUrl(choice.url)) {
      throw new Error('the database URL must start with postgres:// or postgresql://');
    }
    const { openPostgres } = await loadPostgres();
    return openPostgres(choice.url, migrations);
  }
  const { SqliteDatabase } = await import('./drivers/sqlite/database.js');
  const db = SqliteDatabase.open(path.join(choice.dataDir, 'toolgate.db'));
  try {
    await applyMigrations(db, migrations);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}
