// Tool switches are live on every replica: each replica reads the shared switch table every beat and
// applies what another replica's operator changed (its listeners, e.g. MCP list_changed, hear of it as
// of a local change). Only rows that differ from memory are applied, so a quiet table costs one read.
import type { ToolLogger } from '../../lib/logger.js';
import type { SqlDatabase } from '../../store/sql.js';
import type { ToolSwitches } from './service.js';
import type { SwitchKind } from './store.js';

export function followSwitches(
  switches: ToolSwitches,
  db: SqlDatabase,
  everyMs: number,
  logger: ToolLogger,
): () => void {
  let reading = false;
  // A switch set here while a read was on its way must not be undone by that (older) read.
  let localChanges = 0;
  const unsubscribe = switches.onChange(() => localChanges++);
  const timer = setInterval(() => {
    if (reading) return;
    reading = true;
    const changesBefore = localChanges;
    db.all<{ kind: SwitchKind; name: string; enabled: number }>(
      'SELECT kind, name, enabled FROM tool_switches',
    )
      .then(async (rows) => {
        if (localChanges !== changesBefore) return;
        for (const row of rows) {
          const enabled = Number(row.enabled) === 1;
          if (switches.isDisabled(row.kind, row.name) === enabled)
            await switches.set(row.kind, row.name, enabled);
        }
      })
      .catch((err: unknown) => logger.warn({ err }, 'could not read the tool switches of the other replicas'))
      .finally(() => (reading = false));
  }, everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    unsubscribe();
  };
}
