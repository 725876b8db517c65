// The snapshots subsystem's wiring: baselines, checkpoints, changes and fork copies of workspaces (a
// store in the data dir), and the per-file lock it shares with the edit tools, with its lifecycle.
// src/services.ts composes it.
import path from 'node:path';
import { KeyedLock } from '../lib/keyed-lock.js';
import type { Lifecycle } from '../lib/lifecycle.js';
import { CheckpointStore } from '../store/checkpoints.js';
import type { SqlDatabase } from '../store/sql.js';
import { SnapshotService } from './service.js';

export interface SnapshotParts {
  readonly snapshots: SnapshotService;
  /** Serializes changes to the same file (keyed by session and relative path): snapshots and edits. */
  readonly fileLocks: KeyedLock;
  readonly lifecycle: Lifecycle;
}

export function wireSnapshots(dataDir: string, db: SqlDatabase): SnapshotParts {
  const fileLocks = new KeyedLock();
  const snapshots = new SnapshotService(path.join(dataDir, 'snapshots'), new CheckpointStore(db), fileLocks, {
    maxEntries: 200_000,
  });
  return {
    snapshots,
    fileLocks,
    lifecycle: { name: 'snapshots', forgetSession: (id) => snapshots.removeSession(id) },
  };
}
