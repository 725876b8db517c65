// Migrations on PostgreSQL: the shared runner (../../migrate.ts) with the DDL translated (./ddl.ts),
// under an advisory lock. Replicas started together would otherwise race: two CREATE TABLE IF NOT
// EXISTS of schema_migrations can both miss the table and one fail, and a migration's DDL could run
// twice. The lock is a session lock held on a connection of its own while the runner uses others;
// whoever waits for it then finds the migrations applied and skips them.
import type { Migration } from '../../sql.js';
import { applyMigrations } from '../../migrate.js';
import type { PostgresDatabase } from './database.js';
import { postgresDdlFor } from './ddl.js';

/**
 * The lock's key: a fixed number for toolgate's migrations, and the schema they go in (so databases
 * with one schema per tenant or per test migrate side by side, and replicas of one schema one by one).
 */
const MIGRATION_LOCK_KEY = 0x7467_6d31; // "tgm1"
const LOCK_ARGS = `${MIGRATION_LOCK_KEY}, hashtext(coalesce(current_schema(), ''))`;

export async function applyPostgresMigrations(
  db: PostgresDatabase,
  migrations: readonly Migration[],
): Promise<void> {
  await db.withConnection(async (lockHolder, discard) => {
    await lockHolder.query(`SELECT pg_advisory_lock(${LOCK_ARGS})`);
    try {
      await applyMigrations(db, migrations, postgresDdlFor);
    } finally {
      // A connection that cannot say unlock is closed, which releases the lock as well.
      await lockHolder.query(`SELECT pg_advisory_unlock(${LOCK_ARGS})`).catch(discard);
    }
  });
}
