// What each session last read (or wrote) of each file: hash, mtime and size, so write tools can refuse
// to overwrite changes the session has not seen. In the database, so the knowledge survives a restart
// (and is seen by every replica).
import type { Migration, SqlDatabase } from './sql.js';
import { fromStorageError } from '../lib/errors.js';

export const fileReadMigrations: Migration[] = [
  {
    name: 'file_reads_0001_create',
    sql: `
      CREATE TABLE file_reads (
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        mtime_ms REAL NOT NULL,
        size INTEGER NOT NULL,
        read_at INTEGER NOT NULL,
        PRIMARY KEY (session_id, path)
      ) WITHOUT ROWID;
    `,
    // WITHOUT ROWID is SQLite's; PostgreSQL tables have no rowid to leave out.
    postgres: `
      CREATE TABLE file_reads (
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        mtime_ms DOUBLE PRECISION NOT NULL,
        size BIGINT NOT NULL,
        read_at BIGINT NOT NULL,
        PRIMARY KEY (session_id, path)
      );
    `,
  },
];

export interface FileReadRecord {
  sha256: string;
  mtimeMs: number;
  size: number;
  readAt: number;
}

/** Every column of a row from `values`, or the stored row's when the key is there already. */
const UPSERT_TAIL = `ON CONFLICT (session_id, path) DO UPDATE SET sha256 = excluded.sha256,
  mtime_ms = excluded.mtime_ms, size = excluded.size, read_at = excluded.read_at`;

export class FileReadStore {
  /**
   * What was last written per session and path: re-reading an unchanged file (the common case) then
   * costs no commit. Only a cache — the table stays the truth — so it may be dropped at any time.
   */
  private readonly written = new Map<string, Map<string, string>>();
  /** Records the database could not take (disk full, I/O error), per session and path; bounded. */
  private readonly unsaved = new Map<string, Map<string, FileReadRecord>>();

  constructor(private readonly db: SqlDatabase) {}

  /** `path` is workspace-relative. */
  async record(
    sessionId: string,
    path: string,
    state: Omit<FileReadRecord, 'readAt'>,
    now = Date.now(),
  ): Promise<void> {
    const signature = `${state.sha256}:${state.mtimeMs}:${state.size}`;
    let paths = this.written.get(sessionId);
    if (paths?.get(path) === signature) return;
    if (!paths) {
      if (this.written.size > 10_000) this.written.clear();
      this.written.set(sessionId, (paths = new Map()));
    }
    paths.set(path, signature);
    try {
      await this.db.run(
        `INSERT INTO file_reads (session_id, path, sha256, mtime_ms, size, read_at) VALUES (?, ?, ?, ?, ?, ?)
         ${UPSERT_TAIL}`,
        [sessionId, path, state.sha256, state.mtimeMs, state.size, now],
      );
      this.unsaved.get(sessionId)?.delete(path);
    } catch (err) {
      // A full or failing disk must not fail the read that is being recorded: keep the record in
      // memory (the guard still works until a restart) and try the table again on the next record.
      if (!fromStorageError(err)) throw err;
      let kept = this.unsaved.get(sessionId);
      if (!kept || kept.size > 10_000) this.unsaved.set(sessionId, (kept = new Map()));
      kept.set(path, { ...state, readAt: now });
      paths.delete(path);
    }
  }

  async get(sessionId: string, path: string): Promise<FileReadRecord | undefined> {
    const unsaved = this.unsaved.get(sessionId)?.get(path);
    if (unsaved) return unsaved;
    const row = await this.db.get<{ sha256: string; mtime_ms: number; size: number; read_at: number }>(
      'SELECT sha256, mtime_ms, size, read_at FROM file_reads WHERE session_id = ? AND path = ?',
      [sessionId, path],
    );
    return row && { sha256: row.sha256, mtimeMs: row.mtime_ms, size: row.size, readAt: row.read_at };
  }

  /** Forgets a path and, for a directory, everything under it. */
  async forget(sessionId: string, path: string): Promise<void> {
    this.written.delete(sessionId);
    const kept = this.unsaved.get(sessionId);
    if (kept) {
      for (const unsavedPath of kept.keys())
        if (unsavedPath === path || unsavedPath.startsWith(`${path}/`)) kept.delete(unsavedPath);
    }
    const escaped = path.replace(/[\\%_]/g, (ch) => `\\${ch}`);
    await this.db.run(
      "DELETE FROM file_reads WHERE session_id = ? AND (path = ? OR path LIKE ? ESCAPE '\\')",
      [sessionId, path, `${escaped}/%`],
    );
  }

  /** A fork starts knowing what its parent had read (same files, same hashes). */
  async copySession(fromSessionId: string, toSessionId: string): Promise<void> {
    // The new id is cast: PostgreSQL cannot infer a parameter's type from a select list alone.
    await this.db.run(
      `INSERT INTO file_reads (session_id, path, sha256, mtime_ms, size, read_at)
       SELECT CAST(? AS TEXT), path, sha256, mtime_ms, size, read_at FROM file_reads WHERE session_id = ?
       ${UPSERT_TAIL}`,
      [toSessionId, fromSessionId],
    );
  }
}
