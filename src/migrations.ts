// The one ordered list of schema migrations, handed to openSqlDatabase by createServices; each store and
// policy store module owns the SQL for its own tables.
import type { Migration } from './store/sql.js';
import { sessionMigrations } from './store/sessions.js';
import { auditMigrations } from './store/audit.js';
import { approvalMigrations } from './policies/approvals/store.js';
import { idempotencyMigrations } from './policies/idempotency/store.js';
import { fileReadMigrations } from './store/file-reads.js';
import { historyMigrations } from './store/history.js';
import { todoMigrations } from './store/todos.js';
import { checkpointMigrations } from './store/checkpoints.js';
import { toolSwitchMigrations } from './policies/tool-switches/store.js';
import { leaseMigrations } from './store/leases.js';
import { exposedPortMigrations } from './store/exposed-ports.js';

export const MIGRATIONS: readonly Migration[] = [
  ...sessionMigrations,
  ...auditMigrations,
  ...approvalMigrations,
  ...idempotencyMigrations,
  ...fileReadMigrations,
  ...historyMigrations,
  ...todoMigrations,
  ...checkpointMigrations,
  ...toolSwitchMigrations,
  ...leaseMigrations,
  ...exposedPortMigrations,
];
