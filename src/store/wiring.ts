// The store subsystem's wiring, in the two steps the start order asks for: the database with the admin key
// and the sessions (opened after the runtimes and the tool registry, which need none of it), then the stores
// of what calls leave behind (audit, stats, blobs, file reads, history, todos). Each with its lifecycle;
// src/services.ts composes them and hands in the migrations (every store's and policy's tables, a list kept
// at the top layer).
import path from 'node:path';
import type { Config } from '../config.js';
import type { Lifecycle } from '../lib/lifecycle.js';
import { openDatabaseOrExplain } from '../ops/startup.js';
import { loadAdminKey, type AdminKey } from './admin-key.js';
import { AuditStore } from './audit.js';
import { BlobStore } from './blobs.js';
import { FileReadStore } from './file-reads.js';
import { HistoryStore } from './history.js';
import { SessionStore } from './sessions.js';
import type { Migration, SqlDatabase } from './sql.js';
import { StatsStore } from './stats.js';
import { TodoStore } from './todos.js';

export interface DatabaseParts {
  readonly adminKey: AdminKey;
  readonly db: SqlDatabase;
  readonly sessions: SessionStore;
  /** Closes the database, after every store on it. */
  readonly lifecycle: Lifecycle;
}

/** The admin key, the database (SQLite in the data dir, or PostgreSQL) and the session store on it. */
export async function openDatabase(
  config: Pick<Config, 'dataDir' | 'apiKey' | 'database' | 'sessions'>,
  migrations: readonly Migration[],
): Promise<DatabaseParts> {
  const adminKey = await loadAdminKey(config.dataDir, config.apiKey);
  const db = await openDatabaseOrExplain({ dataDir: config.dataDir, url: config.database.url }, migrations);
  const sessions = new SessionStore(db, { idleTtlMs: config.sessions.idleTtlSeconds * 1000 });
  return { adminKey, db, sessions, lifecycle: { name: 'database', close: () => db.close() } };
}

export interface RecordParts {
  readonly audit: AuditStore;
  readonly stats: StatsStore;
  readonly blobs: BlobStore;
  readonly fileReads: FileReadStore;
  readonly history: HistoryStore;
  readonly todos: TodoStore;
  readonly lifecycles: { readonly audit: Lifecycle; readonly history: Lifecycle; readonly blobs: Lifecycle };
}

/** The audit log (its crash journal replayed) and the stores beside it, on the database. */
export async function openRecordStores(
  config: Pick<Config, 'dataDir' | 'replica' | 'audit' | 'blobs'>,
  db: SqlDatabase,
): Promise<RecordParts> {
  const { dataDir } = config;
  // A replica's crash journal is replayed when that replica starts again (same id).
  const audit = await AuditStore.open(
    db,
    path.join(dataDir, config.replica ? `audit-${config.replica.id}.journal` : 'audit.journal'),
  );
  const blobs = new BlobStore(path.join(dataDir, 'blobs'), config.blobs.ttlSeconds * 1000);
  const history = new HistoryStore(db, path.join(dataDir, 'history'));
  const retentionMs = config.audit.retentionDays * 86_400_000;
  return {
    audit,
    stats: new StatsStore(db, audit),
    blobs,
    fileReads: new FileReadStore(db),
    history,
    todos: new TodoStore(db),
    lifecycles: {
      audit: {
        name: 'audit',
        sweep: (now) => (retentionMs > 0 ? audit.deleteOlderThan(now - retentionMs) : 0),
        close: () => audit.close(),
      },
      history: { name: 'history', forgetSession: (id) => history.removeSession(id) },
      blobs: { name: 'blobs', sweep: (now) => blobs.sweep(now) },
    },
  };
}
