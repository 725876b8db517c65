// Previous versions of files changed by tools, for undo_edit: rows in SQLite, contents as blobs under
// <dataDir>/history/<session>/ (a deleted directory as one blob of its files' bytes plus a .tree.json).
// Bounded per file and per session (oldest changes dropped first). The workspace side of every copy is
// read and written through the session runtime: this store only touches its own data dir.
import { randomBytes } from 'node:crypto';
import { promises as fs, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isOutOfSpace, isToolgateError, toolgateError } from '../lib/errors.js';
import type { TreeEntry } from '../runtime/ops/tree.js';
import type { Workspace } from '../runtime/workspace.js';
import type { Migration, SqlDatabase } from './sql.js';
import { makeDirs } from '../lib/make-dirs.js';

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

/**
 * Blobs up to this size are written and deleted with synchronous calls: for the small files most edits
 * touch, the thread-pool round trips of mkdir, open, write, close and unlink cost more than the work
 * (about a millisecond per edit here), and a write of 64 KiB into the page cache holds the loop for tens
 * of microseconds. Larger blobs go through the thread pool.
 */
const SYNC_BLOB_BYTES = 64 * 1024;

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
  constructor(
    private readonly db: SqlDatabase,
    readonly dir: string,
    private readonly limits: HistoryLimits = DEFAULT_HISTORY_LIMITS,
  ) {}

  blobPath(sessionId: string, blob: string): string {
    return path.join(this.dir, sessionId, blob);
  }

  private async newBlob(sessionId: string): Promise<string> {
    await makeDirs(path.join(this.dir, sessionId), 0o700);
    return `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;
  }

  private async add(change: ChangeRef, entry: NewEntry): Promise<void> {
    await this.db.run(
      `INSERT INTO file_history (session_id, change_id, tool, path, kind, blob, mode, link_target, moved_to, bytes,
         created_at) VALUES (@sessionId, @changeId, @tool, @path, @kind, @blob, @mode, @linkTarget, @movedTo, @bytes,
         @createdAt)`,
      {
        sessionId: change.sessionId,
        changeId: change.changeId,
        tool: change.tool,
        path: entry.path,
        kind: entry.kind,
        blob: entry.blob,
        mode: entry.mode,
        linkTarget: entry.linkTarget,
        movedTo: entry.movedTo,
        bytes: entry.bytes,
        createdAt: Date.now(),
      },
    );
  }

  /**
   * Keeps a copy of what is at `relative` now (nothing, a file, a symlink) before a change overwrites it.
   * The workspace side is read through the session runtime; the copy is a blob in the data dir. A caller
   * that has just read the file passes its bytes and mode, saving a second read.
   */
  async snapshot(
    change: ChangeRef,
    workspace: Workspace,
    relative: string,
    known?: { bytes: Uint8Array; mode: number | undefined },
  ): Promise<void> {
    const base = { path: relative, blob: null, mode: null, linkTarget: null, movedTo: null, bytes: 0 };
    let content = known;
    if (!content) {
      const { stat, linkTarget } = await workspace.stat(relative, { follow: false });
      if (!stat) return this.add(change, { ...base, kind: 'absent' });
      if (stat.type === 'symlink')
        return this.add(change, { ...base, kind: 'symlink', linkTarget: linkTarget ?? '' });
      if (stat.type !== 'file') throw new Error(`cannot snapshot ${relative}: not a file`);
      const file = await workspace.readFile(relative, Number.MAX_SAFE_INTEGER, { followFinalSymlink: false });
      content = { bytes: file.bytes, mode: file.stat.mode };
    }
    const { bytes, mode } = content;
    await this.keep(change, bytes, (blob) => ({
      ...base,
      kind: 'file',
      blob,
      mode: mode ?? null,
      bytes: bytes.length,
    }));
  }

  /**
   * Writes `bytes` as a blob (and `tree`, a deleted directory's listing, beside it) and adds its row; if
   * any of it fails (a full disk), what was written goes again: no blob without its row.
   */
  private async keep(
    change: ChangeRef,
    bytes: Uint8Array,
    entry: (blob: string) => NewEntry,
    tree?: string,
  ): Promise<void> {
    const blob = await this.writeBlob(change.sessionId, bytes);
    try {
      if (tree !== undefined)
        await fs.writeFile(this.treeFile(change.sessionId, blob), tree, { mode: 0o600 });
      await this.add(change, entry(blob));
    } catch (err) {
      for (const file of [this.blobPath(change.sessionId, blob), this.treeFile(change.sessionId, blob)])
        rmSync(file, { force: true });
      throw err;
    }
  }

  /**
   * Moves what is at `relative` into the history: this is how files and directories are deleted. Returns
   * whether a copy was kept (undo_edit can bring it back): not for a tree larger than the whole history
   * budget, nor when the data dir has no room for the copy (a full disk: deleting is how room is made).
   */
  async stash(change: ChangeRef, workspace: Workspace, relative: string): Promise<boolean> {
    const { stat, linkTarget } = await workspace.stat(relative, { follow: false });
    if (!stat) throw toolgateError('FILE_NOT_FOUND', `No such file or directory: ${relative}`);
    const base = { path: relative, blob: null, mode: stat.mode, linkTarget: null, movedTo: null, bytes: 0 };
    const copy = async (): Promise<boolean> => {
      if (stat.type === 'symlink') {
        await this.add(change, { ...base, kind: 'symlink', linkTarget: linkTarget ?? '' });
        return true;
      }
      if (stat.type === 'directory') {
        // Packed through the runtime; a tree larger than the whole history budget goes without a copy.
        const packed = await workspace
          .call('packTree', { path: relative, maxBytes: this.limits.sessionBytes })
          .catch((err: unknown) => {
            if (isToolgateError(err) && err.code === 'FILE_TOO_LARGE') return null;
            throw err;
          });
        if (!packed) return false;
        const tree = JSON.stringify(packed.result.entries);
        const bytes = packed.result.bytes;
        await this.keep(
          change,
          packed.payload,
          (blob) => ({ ...base, kind: 'directory', blob, bytes }),
          tree,
        );
        return true;
      }
      // A FIFO, socket or device a command made: nothing to keep, it just goes.
      if (stat.type !== 'file') return false;
      const file = await workspace.readFile(relative, Number.MAX_SAFE_INTEGER, { followFinalSymlink: false });
      const bytes = file.bytes.length;
      await this.keep(change, file.bytes, (blob) => ({ ...base, kind: 'file', blob, bytes }));
      return true;
    };
    const copied = await copy().catch((err: unknown) => {
      if (isOutOfSpace(err)) return false;
      throw err;
    });
    await workspace.remove(relative, { recursive: stat.type === 'directory' });
    return copied;
  }

  /** The content of a file blob. */
  readBlob(sessionId: string, blob: string): Promise<Buffer> {
    return fs.readFile(this.blobPath(sessionId, blob));
  }

  /** Puts a kept entry (file, symlink or packed directory) back at its path in the workspace. */
  async restoreInto(workspace: Workspace, sessionId: string, entry: HistoryEntry): Promise<void> {
    if (entry.kind === 'directory' && entry.blob) {
      const entries = JSON.parse(
        await fs.readFile(this.treeFile(sessionId, entry.blob), 'utf8'),
      ) as TreeEntry[];
      await workspace.call(
        'unpackTree',
        { path: entry.path, entries },
        await this.readBlob(sessionId, entry.blob),
      );
    } else if (entry.kind === 'symlink') {
      await workspace.remove(entry.path);
      await workspace.symlink(entry.linkTarget ?? '', entry.path);
    } else if (entry.kind === 'file' && entry.blob) {
      await workspace.writeFile(
        entry.path,
        await this.readBlob(sessionId, entry.blob),
        entry.mode ?? undefined,
      );
    }
  }

  private treeFile(sessionId: string, blob: string): string {
    return `${this.blobPath(sessionId, blob)}.tree.json`;
  }

  private async writeBlob(sessionId: string, bytes: Uint8Array): Promise<string> {
    const blob = await this.newBlob(sessionId);
    const file = this.blobPath(sessionId, blob);
    try {
      if (bytes.length <= SYNC_BLOB_BYTES) writeFileSync(file, bytes, { mode: 0o600 });
      else await fs.writeFile(file, bytes, { mode: 0o600 });
    } catch (err) {
      // A blob cut short by a full disk is no copy: it goes, and gives its room back.
      rmSync(file, { force: true });
      throw err;
    }
    return blob;
  }

  recordMove(change: ChangeRef, source: string, destination: string): Promise<void> {
    return this.add(change, {
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
  async latestChange(sessionId: string, relative: string): Promise<HistoryEntry[]> {
    const row = await this.db.get<{ change_id: string }>(
      `SELECT change_id FROM file_history WHERE session_id = ? AND (path = ? OR moved_to = ?)
       ORDER BY id DESC LIMIT 1`,
      [sessionId, relative, relative],
    );
    return row ? (await this.entriesOf(sessionId, row.change_id)).map(fromRow) : [];
  }

  private entriesOf(sessionId: string, changeId: string): Promise<Row[]> {
    return this.db.all<Row>('SELECT * FROM file_history WHERE session_id = ? AND change_id = ? ORDER BY id', [
      sessionId,
      changeId,
    ]);
  }

  /** A change newer than `entry` that touched `relative`, if any (undo must not clobber it). */
  async laterChange(sessionId: string, entry: HistoryEntry, relative: string): Promise<string | undefined> {
    const row = await this.db.get<{ change_id: string }>(
      `SELECT change_id FROM file_history WHERE session_id = ? AND id > ? AND (path = ? OR moved_to = ?) LIMIT 1`,
      [sessionId, entry.id, relative, relative],
    );
    return row?.change_id;
  }

  /** Forgets a change and deletes its blobs. */
  async drop(sessionId: string, changeId: string): Promise<void> {
    const rows = await this.entriesOf(sessionId, changeId);
    await this.db.run('DELETE FROM file_history WHERE session_id = ? AND change_id = ?', [
      sessionId,
      changeId,
    ]);
    for (const row of rows) {
      if (!row.blob) continue;
      const files = [this.blobPath(sessionId, row.blob), this.treeFile(sessionId, row.blob)];
      for (const file of files) {
        if (row.bytes <= SYNC_BLOB_BYTES) rmSync(file, { force: true });
        else await fs.rm(file, { force: true });
      }
    }
  }

  /** Drops the oldest changes beyond the per-file and per-session bounds. */
  async prune(sessionId: string, touched: readonly string[]): Promise<void> {
    const doomed = new Set<string>();
    for (const relative of touched) {
      const rows = await this.db.all<{ change_id: string }>(
        `SELECT change_id FROM file_history WHERE session_id = ? AND (path = ? OR moved_to = ?)
         GROUP BY change_id ORDER BY MIN(id)`,
        [sessionId, relative, relative],
      );
      const changes = rows.map((r) => r.change_id);
      for (const id of changes.slice(0, Math.max(0, changes.length - this.limits.perFile))) doomed.add(id);
    }
    // SUM over BIGINT is NUMERIC on PostgreSQL: cast back to an integer.
    const all = (
      await this.db.all<{ change_id: string; bytes: number }>(
        `SELECT change_id, CAST(SUM(bytes) AS BIGINT) AS bytes FROM file_history WHERE session_id = ?
         GROUP BY change_id ORDER BY MIN(id)`,
        [sessionId],
      )
    ).map((c) => ({ change_id: c.change_id, bytes: Number(c.bytes) }));
    let count = all.filter((c) => !doomed.has(c.change_id)).length;
    let bytes = all.reduce((sum, c) => sum + (doomed.has(c.change_id) ? 0 : c.bytes), 0);
    for (const change of all) {
      if (count <= this.limits.perSession && bytes <= this.limits.sessionBytes) break;
      if (doomed.has(change.change_id)) continue;
      doomed.add(change.change_id);
      count--;
      bytes -= change.bytes;
    }
    for (const id of doomed) {
      try {
        await this.drop(sessionId, id);
      } catch (err) {
        // Pruning runs after the change is made: a full disk refusing the delete (SQLite needs room in
        // its WAL to delete) leaves the old entries for the next prune, and the change stands.
        if (!isOutOfSpace(err)) throw err;
        return;
      }
    }
  }

  /** Rows go with the session (foreign key); this removes the blobs. */
  async removeSession(sessionId: string): Promise<void> {
    await fs.rm(path.join(this.dir, sessionId), { recursive: true, force: true });
  }
}
