// What each session last read (or wrote) of each file: hash, mtime and size, so write tools can refuse
// to overwrite changes the session has not seen. In SQLite, so the knowledge survives a restart.
import type { Db, Migration } from './db.js';
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
  },
];

export interface FileReadRecord {
  sha256: string;
  mtimeMs: number;
  size: number;
  readAt: number;
}

export class FileReadStore {
  private readonly upsert;
  private readonly select;
  private readonly remove;
  private readonly copyAll;
  /**
   * What was last written per session and path: re-reading an unchanged file (the common case) then
   * costs no SQLite commit. Only a cache — the table stays the truth — so it may be dropped at any time.
   */
  private readonly written = new Map<string, Map<string, string>>();
  /** Records SQLite could not take (disk full, I/O error), per session and path; bounded. */
  private readonly unsaved = new Map<string, Map<string, FileReadRecord>>();

  constructor(db: Db) {
    this.upsert = db.prepare(
      `INSERT INTO file_reads (session_id, path, sha256, mtime_ms, size, read_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (session_id, path) DO UPDATE SET sha256 = excluded.sha256, mtime_ms = excluded.mtime_ms,
         size = excluded.size, read_at = excluded.read_at`,
    );
    this.select = db.prepare(
      'SELECT sha256, mtime_ms, size, read_at FROM file_reads WHERE session_id = ? AND path = ?',
    );
    this.copyAll = db.prepare(
      `INSERT OR REPLACE INTO file_reads (session_id, path, sha256, mtime_ms, size, read_at)
       SELECT ?, path, sha256, mtime_ms, size, read_at FROM file_reads WHERE session_id = ?`,
    );
    this.remove = db.prepare(
      "DELETE FROM file_reads WHERE session_id = ? AND (path = ? OR path LIKE ? ESCAPE '\\')",
    );
  }

  /** `path` is workspace-relative. */
  record(sessionId: string, path: string, state: Omit<FileReadRecord, 'readAt'>, now = Date.now()): void {
    const signature = `${state.sha256}:${state.mtimeMs}:${state.size}`;
    let paths = this.written.get(sessionId);
    if (paths?.get(path) === signature) return;
    if (!paths) {
      if (this.written.size > 10_000) this.written.clear();
      this.written.set(sessionId, (paths = new Map()));
    }
    paths.set(path, signature);
    try {
      this.upsert.run(sessionId, path, state.sha256, state.mtimeMs, state.size, now);
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

  get(sessionId: string, path: string): FileReadRecord | undefined {
    const unsaved = this.unsaved.get(sessionId)?.get(path);
    if (unsaved) return unsaved;
    const row = this.select.get(sessionId, path) as
      { sha256: string; mtime_ms: number; size: number; read_at: number } | undefined;
    return row && { sha256: row.sha256, mtimeMs: row.mtime_ms, size: row.size, readAt: row.read_at };
  }

  /** Forgets a path and, for a directory, everything under it. */
  forget(sessionId: string, path: string): void {
    this.written.delete(sessionId);
    const kept = this.unsaved.get(sessionId);
    if (kept) {
      for (const unsavedPath of kept.keys())
        if (unsavedPath === path || unsavedPath.startsWith(`${path}/`)) kept.delete(unsavedPath);
    }
    const escaped = path.replace(/[\\%_]/g, (ch) => `\\${ch}`);
    this.remove.run(sessionId, path, `${escaped}/%`);
  }

  /** A fork starts knowing what its parent had read (same files, same hashes). */
  copySession(fromSessionId: string, toSessionId: string): void {
    this.copyAll.run(toSessionId, fromSessionId);
  }
}
