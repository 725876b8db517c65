// Opens the SQLite database (WAL, foreign keys) and applies the named migrations in order, once each. The
// list is the caller's (src/migrations.ts): each store owns its SQL, and no store imports this module back.
import type BetterSqlite3 from 'better-sqlite3';
import { Database } from './sqlite-driver.js';

export type Db = BetterSqlite3.Database;

export interface Migration {
  /** Unique and stable: `<owner>_<nnnn>_<what>`; applied once, in list order. */
  readonly name: string;
  readonly sql: string;
}

export function openDatabase(file: string, migrations: readonly Migration[]): Db {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // NORMAL in WAL mode survives a process crash (kill -9) with every committed transaction; only an OS
  // crash can lose the last ones. That is the trade we want for per-call audit rows.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  applyMigrations(db, migrations);
  return db;
}

export function applyMigrations(db: Db, migrations: readonly Migration[]): void {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)',
  );
  const applied = new Set(
    (db.prepare('SELECT name FROM schema_migrations').all() as { name: string }[]).map((row) => row.name),
  );
  const record = db.prepare('INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)');
  for (const migration of migrations) {
    if (applied.has(migration.name)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      record.run(migration.name, Date.now());
    })();
  }
}
