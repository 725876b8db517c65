// Previous versions of files changed by tools, for undo_edit: rows in SQLite, contents as blobs under
// <dataDir>/history/<session>/. Bounded per file and per session (oldest changes dropped first).
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Db, Migration } from './db.js';

export const historyMigrations: Migration[] = [
  {
    name: 'history_0001_create',
    sql: `
      CREATE TABLE file_history (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        change_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        path TEXT NOT NULL,
        kind TEXT NOT NULL,
        blob TEXT,
        mode INTEGER,
        link_target TEXT,
        moved_to TEXT,
        bytes INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX file_history_path ON file_history (session_id, path, id);
      CREATE INDEX file_history_change ON file_history (session_id, change_id);
    `,
  },
];

/**
 * What a path was before a change: `absent` (the change created it), `file`/`symlink`/`directory`
 * (kept as a blob or link target), `moved` (the change moved it to `movedTo`).
 */
export type HistoryKind = 'absent' | 'file' | 'symlink' | 'directory' | 'moved';

export interface HistoryEntry {
  id: number;
  changeId: string;
  tool: string;
  path: string;
  kind: HistoryKind;
  blob: string | null;
  mode: number | null;
  linkTarget: string | null;
  movedTo: string | null;
  bytes: number;
  createdAt: number;
}

/** One tool call's change: all its entries are undone together. */
export interface ChangeRef {
  sessionId: string;
  changeId: string;
  tool: string;
}

export interface HistoryLimits {
  /** Changes kept per file. */
  perFile: number;
  /** Changes kept per session. */
  perSession: number;
  /** Blob bytes kept per session. */
  sessionBytes: number;
}

export const DEFAULT_HISTORY_LIMITS: HistoryLimits = {
  perFile: 20,
  perSession: 200,
  sessionBytes: 256 * 1024 * 1024,
};

interface Row {
  id: number;
  change_id: string;
  tool: string;
  path: string;
  kind: HistoryKind;
  blob: string | null;
  mode: number | null;
  link_target: string | null;
  moved_to: string | null;
  bytes: number;
  created_at: number;
}

const fromRow = (row: Row): HistoryEntry => ({
  id: row.id,
  changeId: row.change_id,
  tool: row.tool,
  path: row.path,
  kind: row.kind,
  blob: row.blob,
  mode: row.mode,
  linkTarget: row.link_target,
  movedTo: row.moved_to,
  bytes: row.bytes,
  createdAt: row.created_at,
});

type NewEntry = Omit<HistoryEntry, 'id' | 'changeId' | 'tool' | 'createdAt'>;

export class HistoryStore {
  private readonly insert;
  private readonly latestForPath;
  private readonly byChange;
  private readonly laterTouching;
  private readonly deleteChange;
  private readonly changesOfSession;
  private readonly changesOfPath;

  constructor(
    db: Db,
    readonly dir: string,
    private readonly limits: HistoryLimits = DEFAULT_HISTORY_LIMITS,
  ) {
    this.insert = db.prepare(
      `INSERT INTO file_history (session_id, change_id, tool, path, kind, blob, mode, link_target, moved_to, bytes,
         created_at) VALUES (@sessionId, @changeId, @tool, @path, @kind, @blob, @mode, @linkTarget, @movedTo, @bytes,
         @createdAt)`,
    );
    this.latestForPath = db.prepare(
      `SELECT change_id FROM file_history WHERE session_id = ? AND (path = ? OR moved_to = ?) ORDER BY id DESC LIMIT 1`,
    );
    this.byChange = db.prepare(
      'SELECT * FROM file_history WHERE session_id = ? AND change_id = ? ORDER BY id',
    );
    this.laterTouching = db.prepare(
      `SELECT change_id FROM file_history WHERE session_id = ? AND id > ? AND (path = ? OR moved_to = ?) LIMIT 1`,
    );
    this.deleteChange = db.prepare('DELETE FROM file_history WHERE session_id = ? AND change_id = ?');
    this.changesOfSession = db.prepare(
      `SELECT change_id, SUM(bytes) AS bytes FROM file_history WHERE session_id = ? GROUP BY change_id ORDER BY MIN(id)`,
    );
    this.changesOfPath = db.prepare(
      `SELECT change_id FROM file_history WHERE session_id = ? AND (path = ? OR moved_to = ?) GROUP BY change_id
       ORDER BY MIN(id)`,
    );
  }

  blobPath(sessionId: string, blob: string): string {
    return path.join(this.dir, sessionId, blob);
  }

  private async newBlob(sessionId: string): Promise<string> {
    await fs.mkdir(path.join(this.dir, sessionId), { recursive: true, mode: 0o700 });
    return `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;
  }

  private add(change: ChangeRef, entry: NewEntry): void {
    this.insert.run({ ...entry, ...change, createdAt: Date.now() });
  }

  /** Keeps a copy of what is at `absolute` now (nothing, a file, a symlink) before a change overwrites it. */
  async snapshot(change: ChangeRef, relative: string, absolute: string): Promise<void> {
    const stat = await fs.lstat(absolute).catch(() => undefined);
    const base = { path: relative, blob: null, mode: null, linkTarget: null, movedTo: null, bytes: 0 };
    if (!stat) return this.add(change, { ...base, kind: 'absent' });
    if (stat.isSymbolicLink()) {
      return this.add(change, { ...base, kind: 'symlink', linkTarget: await fs.readlink(absolute) });
    }
    if (!stat.isFile()) throw new Error(`cannot snapshot ${relative}: not a file`);
    const blob = await this.newBlob(change.sessionId);
    await fs.copyFile(absolute, this.blobPath(change.sessionId, blob), fs.constants.COPYFILE_FICLONE);
    this.add(change, { ...base, kind: 'file', blob, mode: stat.mode & 0o7777, bytes: stat.size });
  }

  /** Moves what is at `absolute` into the history (this is how files and directories are deleted). */
  async stash(change: ChangeRef, relative: string, absolute: string): Promise<void> {
    const stat = await fs.lstat(absolute);
    const base = {
      path: relative,
      blob: null,
      mode: stat.mode & 0o7777,
      linkTarget: null,
      movedTo: null,
      bytes: 0,
    };
    if (stat.isSymbolicLink()) {
      const linkTarget = await fs.readlink(absolute);
      await fs.rm(absolute);
      return this.add(change, { ...base, kind: 'symlink', linkTarget });
    }
    const blob = await this.newBlob(change.sessionId);
    await moveAcrossDevices(absolute, this.blobPath(change.sessionId, blob));
    const bytes = stat.isDirectory() ? await treeBytes(this.blobPath(change.sessionId, blob)) : stat.size;
    this.add(change, { ...base, kind: stat.isDirectory() ? 'directory' : 'file', blob, bytes });
  }

  recordMove(change: ChangeRef, source: string, destination: string): void {
    this.add(change, {
      path: source,
      kind: 'moved',
      blob: null,
      mode: null,
      linkTarget: null,
      movedTo: destination,
      bytes: 0,
    });
  }

  /** The entries of the newest change that touched `relative`, in the order they were recorded. */
  latestChange(sessionId: string, relative: string): HistoryEntry[] {
    const row = this.latestForPath.get(sessionId, relative, relative) as { change_id: string } | undefined;
    return row ? (this.byChange.all(sessionId, row.change_id) as Row[]).map(fromRow) : [];
  }

  /** A change newer than `entry` that touched `relative`, if any (undo must not clobber it). */
  laterChange(sessionId: string, entry: HistoryEntry, relative: string): string | undefined {
    const row = this.laterTouching.get(sessionId, entry.id, relative, relative) as
      { change_id: string } | undefined;
    return row?.change_id;
  }

  /** Forgets a change and deletes its blobs. */
  async drop(sessionId: string, changeId: string): Promise<void> {
    const rows = this.byChange.all(sessionId, changeId) as Row[];
    this.deleteChange.run(sessionId, changeId);
    for (const row of rows) {
      if (row.blob) await fs.rm(this.blobPath(sessionId, row.blob), { recursive: true, force: true });
    }
  }

  /** Drops the oldest changes beyond the per-file and per-session bounds. */
  async prune(sessionId: string, touched: readonly string[]): Promise<void> {
    const doomed = new Set<string>();
    for (const relative of touched) {
      const changes = (this.changesOfPath.all(sessionId, relative, relative) as { change_id: string }[]).map(
        (r) => r.change_id,
      );
      for (const id of changes.slice(0, Math.max(0, changes.length - this.limits.perFile))) doomed.add(id);
    }
    const all = this.changesOfSession.all(sessionId) as { change_id: string; bytes: number }[];
    let count = all.filter((c) => !doomed.has(c.change_id)).length;
    let bytes = all.reduce((sum, c) => sum + (doomed.has(c.change_id) ? 0 : c.bytes), 0);
    for (const change of all) {
      if (count <= this.limits.perSession && bytes <= this.limits.sessionBytes) break;
      if (doomed.has(change.change_id)) continue;
      doomed.add(change.change_id);
      count--;
      bytes -= change.bytes;
    }
    for (const id of doomed) await this.drop(sessionId, id);
  }

  /** Rows go with the session (foreign key); this removes the blobs. */
  async removeSession(sessionId: string): Promise<void> {
    await fs.rm(path.join(this.dir, sessionId), { recursive: true, force: true });
  }
}

async function moveAcrossDevices(from: string, to: string): Promise<void> {
  try {
    await fs.rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await fs.cp(from, to, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
    await fs.rm(from, { recursive: true, force: true });
  }
}

async function treeBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await fs.lstat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}
