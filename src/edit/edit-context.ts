// What the edit engine needs of a tool call: its id and session, the session's workspace, the limits, and
// the stores that make an edit safe (read-before-write, undo history, per-file locks). A tool's
// ToolContext is one; the engine never sees the rest of the contract (it sits below it).
import type { Config } from '../config.js';
import type { CpuPool } from '../cpu/cpu-pool.js';
import type { KeyedLock } from '../lib/keyed-lock.js';
import type { Workspace } from '../runtime/workspace.js';
import type { FileReadStore } from '../store/file-reads.js';
import type { HistoryStore } from '../store/history.js';
import type { SessionRecord } from '../store/sessions.js';

export interface EditContext {
  readonly callId: string;
  readonly session: SessionRecord;
  readonly workspace: Workspace;
  readonly limits: Config['limits'];
  /** The call's cancellation: CPU-heavy steps stop when it fires. */
  readonly signal?: AbortSignal;
  readonly services: {
    /** Where matching and patch placing run: worker threads with deadlines, not the event loop. */
    readonly cpu: CpuPool;
    readonly fileReads: FileReadStore;
    readonly history: HistoryStore;
    readonly fileLocks: KeyedLock;
  };
}
