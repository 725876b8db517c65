// Checkpoint rows: what the list shows (name, time, size). The manifests and blobs themselves are in
// the session's snapshot store in the data dir (src/snapshots/blob-store.ts). Removed with the session.
import { randomBytes } from 'node:crypto';
import { Type, type Static } from 'typebox';
import type { Migration, SqlDatabase } from './sql.js';

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
  {
    // The list's order among checkpoints of the same millisecond: their order of creation, kept
    // explicitly (it was SQLite's rowid, which PostgreSQL has not).
    name: 'checkpoints_0002_seq',
    sql: `
      ALTER TABLE checkpoints ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
      UPDATE checkpoints SET seq = rowid;
    `,
    // PostgreSQL's tables are made by this list from empty: there is no earlier row to number.
    postgres: 'ALTER TABLE checkpoints ADD COLUMN seq BIGINT NOT NULL DEFAULT 0;',
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
  constructor(private readonly db: SqlDatabase) {}

  async add(
    sessionId: string,
    checkpoint: Omit<Checkpoint, 'createdAt'> & { createdAt: number },
  ): Promise<Checkpoint> {
    const { id, name, createdAt, files, bytes, addedBytes } = checkpoint;
    // seq: one past the session's newest (a session's checkpoints are made one at a time).
    await this.db.run(
      `INSERT INTO checkpoints (session_id, id, name, created_at, files, bytes, added_bytes, seq)
       VALUES (@sessionId, @id, @name, @createdAt, @files, @bytes, @addedBytes,
         (SELECT COALESCE(MAX(seq), 0) + 1 FROM checkpoints WHERE session_id = @sessionId))`,
      { sessionId, id, name, createdAt, files, bytes, addedBytes },
    );
    return { ...checkpoint, createdAt: new Date(createdAt).toISOString() };
  }

  async list(sessionId: string): Promise<Checkpoint[]> {
    const rows = await this.db.all<Row>(
      'SELECT * FROM checkpoints WHERE session_id = ? ORDER BY created_at, seq',
      [sessionId],
    );
    return rows.map(fromRow);
  }

  async get(sessionId: string, id: string): Promise<Checkpoint | undefined> {
    const row = await this.db.get<Row>('SELECT * FROM checkpoints WHERE session_id = ? AND id = ?', [
      sessionId,
      id,
    ]);
    return row && fromRow(row);
  }

  async delete(sessionId: string, id: string): Promise<boolean> {
    const result = await this.db.run('DELETE FROM checkpoints WHERE session_id = ? AND id = ?', [
      sessionId,
      id,
    ]);
    return result.changes > 0;
  }
}
