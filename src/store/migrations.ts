// The one ordered list of schema migrations; each store module owns the SQL for its own tables.
import type { Migration } from './db.js';
import { sessionMigrations } from './sessions.js';
import { auditMigrations } from './audit.js';
import { approvalMigrations } from '../policies/approvals/store.js';
import { idempotencyMigrations } from '../policies/idempotency/store.js';
import { fileReadMigrations } from './file-reads.js';
import { historyMigrations } from './history.js';
import { todoMigrations } from './todos.js';
import { checkpointMigrations } from './checkpoints.js';
import { toolSwitchMigrations } from '../policies/tool-switches/store.js';

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
];
