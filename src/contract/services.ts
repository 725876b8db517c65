// The services tools use that live above src/core, added to core's ToolServices and ToolContext by
// declaration merging (see src/core/context.ts): core stays free of imports from these layers.
import type { CodeIndex } from '../code/code-index.js';
import type { CallContextExtras } from './context.js';
import type { JobManager } from '../jobs/job-manager.js';
import type { RuntimeManager } from '../runtime/manager.js';
import type { Workspace } from '../runtime/workspace.js';
import type { CommandRunner } from '../runtime/runner/runner.js';
import type { WorkspaceManager } from '../sandbox/workspaces.js';
import type { FileReadStore } from '../store/file-reads.js';
import type { HistoryStore } from '../store/history.js';
import type { SessionRecord } from '../store/sessions.js';
import type { SnapshotService } from '../snapshots/service.js';
import type { KeyedLock } from '../lib/keyed-lock.js';

declare module './context.js' {
  interface ToolServices {
    readonly workspaces: WorkspaceManager;
    /** The sandbox choice and whether commands may run (commands start inside the session runtime). */
    readonly runner: CommandRunner;
    /** One runtime per live session: the only place workspace I/O and commands happen. */
    readonly runtimes: RuntimeManager;
    /** Running and finished commands (run_command and the job tools). */
    readonly jobs: JobManager;
    /** Parsed source files per workspace, for the code and project tools. */
    readonly codeIndex: CodeIndex;
    /** What each session last read of each file (read-before-write safety). */
    readonly fileReads: FileReadStore;
    /** Previous versions of changed files, for undo_edit. */
    readonly history: HistoryStore;
    /** Baselines, checkpoints, changes and fork copies of workspaces (store in the data dir). */
    readonly snapshots: SnapshotService;
    /** Serializes changes to the same file (keyed by session and relative path). */
    readonly fileLocks: KeyedLock;
    /** The parts of a call's context that come from above core (its workspace). */
    callContext(session: SessionRecord, signal: AbortSignal): CallContextExtras;
  }

  interface ToolContext {
    /** The session's workspace, reached only through its runtime: no host paths. */
    readonly workspace: Workspace;
  }
}
