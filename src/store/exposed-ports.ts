// The ports each session has exposed for previews (expose_port): a row per port, removed with the session.
// In the database rather than in memory so every replica sees them and they survive a restart.
import type { Migration, SqlDatabase } from './sql.js';

export const exposedPortMigrations: Migration[] = [
  {
    name: 'exposed_ports_0001_create',
    sql: `
      CREATE TABLE exposed_ports (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        port INTEGER NOT NULL,
        exposed_at INTEGER NOT NULL,
        exposed_by TEXT NOT NULL,
        PRIMARY KEY (session_id, port)
      );
    `,
  },
];

export interface ExposedPortRow {
  readonly port: number;
  readonly exposedAt: number;
  /** Who exposed it: `tool` (expose_port), `admin`. */
  readonly exposedBy: string;
}

export class ExposedPortStore {
  constructor(private readonly db: SqlDatabase) {}

  async list(sessionId: string): Promise<ExposedPortRow[]> {
    const rows = await this.db.all<{
      port: number | string;
      exposed_at: number | string;
      exposed_by: string;
    }>('SELECT port, exposed_at, exposed_by FROM exposed_ports WHERE session_id = ? ORDER BY port', [
      sessionId,
    ]);
    // PostgreSQL answers BIGINT columns as strings.
    return rows.map((row) => ({
      port: Number(row.port),
      exposedAt: Number(row.exposed_at),
      exposedBy: row.exposed_by,
    }));
  }

  /** Exposes the port (again: the first time is kept). */
  async add(sessionId: string, port: number, by: string, now = Date.now()): Promise<void> {
    await this.db.run(
      `INSERT INTO exposed_ports (session_id, port, exposed_at, exposed_by) VALUES (?, ?, ?, ?)
       ON CONFLICT (session_id, port) DO NOTHING`,
      [sessionId, port, now, by],
    );
  }

  async remove(sessionId: string, port: number): Promise<boolean> {
    const result = await this.db.run('DELETE FROM exposed_ports WHERE session_id = ? AND port = ?', [
      sessionId,
      port,
    ]);
    return result.changes > 0;
  }
}
