// Operator switches that turn a tool or a whole category off (or back on) for every session. Only the
// switches that were set are stored; a tool with no row is enabled. Read once at start, then kept in memory.
import type { Migration, SqlDatabase } from '../../store/sql.js';

export const toolSwitchMigrations: Migration[] = [
  {
    name: 'tool_switches_0001_create',
    sql: `
      CREATE TABLE tool_switches (
        kind TEXT NOT NULL CHECK (kind IN ('tool', 'category')),
        name TEXT NOT NULL,
        enabled INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (kind, name)
      );
    `,
  },
];

export type SwitchKind = 'tool' | 'category';

export interface SwitchRow {
  kind: SwitchKind;
  name: string;
  enabled: boolean;
}

export class ToolSwitchStore {
  constructor(private readonly db: SqlDatabase) {}

  async all(): Promise<SwitchRow[]> {
    const rows = await this.db.all<{ kind: SwitchKind; name: string; enabled: number }>(
      'SELECT kind, name, enabled FROM tool_switches',
    );
    return rows.map((row) => ({ kind: row.kind, name: row.name, enabled: Number(row.enabled) === 1 }));
  }

  async set(kind: SwitchKind, name: string, enabled: boolean, now = Date.now()): Promise<void> {
    await this.db.run(
      `INSERT INTO tool_switches (kind, name, enabled, updated_at) VALUES (@kind, @name, @enabled, @updatedAt)
       ON CONFLICT (kind, name) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at`,
      { kind, name, enabled: enabled ? 1 : 0, updatedAt: now },
    );
  }
}
