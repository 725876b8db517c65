// Operator switches that turn a tool or a whole category off (or back on) for every session. Only the
// switches that were set are stored; a tool with no row is enabled. Read once at start, then kept in memory.
import type { Db, Migration } from '../../store/db.js';

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
  private readonly selectAll;
  private readonly upsert;

  constructor(db: Db) {
    this.selectAll = db.prepare('SELECT kind, name, enabled FROM tool_switches');
    this.upsert = db.prepare(
      `INSERT INTO tool_switches (kind, name, enabled, updated_at) VALUES (@kind, @name, @enabled, @updatedAt)
       ON CONFLICT (kind, name) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at`,
    );
  }

  all(): SwitchRow[] {
    return (this.selectAll.all() as { kind: SwitchKind; name: string; enabled: number }[]).map((row) => ({
      kind: row.kind,
      name: row.name,
      enabled: row.enabled === 1,
    }));
  }

  set(kind: SwitchKind, name: string, enabled: boolean, now = Date.now()): void {
    this.upsert.run({ kind, name, enabled: enabled ? 1 : 0, updatedAt: now });
  }
}
