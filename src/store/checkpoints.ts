// Checkpoint rows: what the list shows (name, time, size). The manifests and blobs themselves are in
// the session's snapshot store in the data dir (src/snapshots/blob-store.ts). Removed with the session.
import { randomBytes } from 'node:crypto';
import { Type, type Static } from 'typebox';
import type { Db, Migration } from './db.js';

export const checkpointMigrations: Migration[] = [
  {
    name: 'checkpoints_0001_create',
    sql: `
      CREATE TABLE checkpoints (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        name TEXT,
        created_at INTEGER NOT NULL,
        files INTEGER NOT NULL,
        bytes INTEGER NOT NULL,
        added_bytes INTEGER NOT NULL,
        PRIMARY KEY (session_id, id)
      );
    `,
  },
];

export const CheckpointSchema = Type.Object({
  id: Type.String({ description: 'Checkpoint id (cp_…), for restore, delete and changes?since=' }),
  name: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  files: Type.Integer({ description: 'Regular files in the snapshot' }),
  bytes: Type.Integer({ description: 'Bytes of file content in the snapshot' }),
  addedBytes: Type.Integer({
    description: 'Content bytes this checkpoint added to the store (unchanged files are shared: 0)',
  }),
});
export type Checkpoint = Static<typeof CheckpointSchema>;

interface Row {
  id: string;
  name: string | null;
  created_at: number;
  files: number;
  bytes: number;
  added_bytes: number;
}

const fromRow = (row: Row): Checkpoint => ({
  id: row.id,
  name: row.name,
  createdAt: new Date(row.created_at).toISOString(),
  files: row.files,
  bytes: row.bytes,
  addedBytes: row.added_bytes,
});

export const CHECKPOINT_ID = /^cp_[0-9a-f]{16}$/;
export const newCheckpointId = (): string => `cp_${randomBytes(8).toString('hex')}`;

export class CheckpointStore {
  private readonly insertRow;
  private readonly selectAll;
  private readonly selectOne;
  private readonly deleteRow;

  constructor(db: Db) {
    this.insertRow = db.prepare(
      `INSERT INTO checkpoints (session_id, id, name, created_at, files, bytes, added_bytes)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.selectAll = db.prepare('SELECT * FROM checkpoints WHERE session_id = ? ORDER BY created_at, rowid');
    this.selectOne = db.prepare('SELECT * FROM checkpoints WHERE session_id = ? AND id = ?');
    this.deleteRow = db.prepare('DELETE FROM checkpoints WHERE session_id = ? AND id = ?');
  }

  add(sessionId: string, checkpoint: Omit<Checkpoint, 'createdAt'> & { createdAt: number }): Checkpoint {
    const { id, name, createdAt, files, bytes, addedBytes } = checkpoint;
    this.insertRow.run(sessionId, id, name, createdAt, files, bytes, addedBytes);
    return { ...checkpoint, createdAt: new Date(createdAt).toISOString() };
  }

  list(sessionId: string): Checkpoint[] {
    return (this.selectAll.all(sessionId) as Row[]).map(fromRow);
  }

  get(sessionId: string, id: string): Checkpoint | undefined {
    const row = this.selectOne.get(sessionId, id) as Row | undefined;
    return row && fromRow(row);
  }

  delete(sessionId: string, id: string): boolean {
    return this.deleteRow.run(sessionId, id).changes > 0;
  }
}
