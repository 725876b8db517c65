// Applies the named migrations in list order, each once and in its own transaction, on either driver.
// The list is the caller's (src/migrations.ts): each store owns its SQL, and no store imports this back.
import type { Migration, SqlDatabase } from './sql.js';

/** The text a driver applies for a migration: PostgreSQL's own where given, else the translated DDL. */
export type DdlFor = (migration: Migration) => string;

export async function applyMigrations(
  db: SqlDatabase,
  migrations: readonly Migration[],
  ddlFor: DdlFor = (migration) => migration.sql,
): Promise<void> {
  await db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)',
  );
  const applied = new Set(
    (await db.all<{ name: string }>('SELECT name FROM schema_migrations')).map((row) => row.name),
  );
  for (const migration of migrations) {
    if (applied.has(migration.name)) continue;
    await db.transaction(async (tx) => {
      // A re-check inside the transaction: another replica may have applied it since the read above
      // (PostgreSQL); the loser's insert would fail on the primary key and roll its DDL back anyway.
      if (await tx.get('SELECT name FROM schema_migrations WHERE name = ?', [migration.name])) return;
      for (const statement of splitStatements(ddlFor(migration))) await tx.run(statement);
      await tx.run('INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)', [
        migration.name,
        Date.now(),
      ]);
    });
  }
}

/** DDL split at `;` line ends (migration texts hold no `;` inside literals): one statement per run. */
export const splitStatements = (sql: string): string[] =>
  sql
    .split(/;\s*(?:\n|$)/)
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0);
