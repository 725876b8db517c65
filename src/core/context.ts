// What a tool gets to work with. Tools import nothing from Fastify or routes: everything arrives here.
import type { Config } from '../config.js';
import type { CodeIndex } from '../code/code-index.js';
import type { JobManager } from '../jobs/job-manager.js';
import type { CommandRunner } from '../sandbox/runner/runner.js';
import type { RuntimeManager } from '../runtime/manager.js';
import type { Workspace } from '../runtime/workspace.js';
import type { WorkspaceManager } from '../sandbox/workspaces.js';
import type { Db } from '../store/db.js';
import type { FileReadStore } from '../store/file-reads.js';
import type { HistoryStore } from '../store/history.js';
import type { KeyedLock } from '../tools/shared/keyed-lock.js';
import type { SessionRecord } from '../store/sessions.js';

/** The subset of pino's logger tools may use. */
export interface ToolLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

/** A piece of output a tool emits while it runs (streamed to SSE clients and the activity stream). */
export interface OutputChunk {
  stream: 'stdout' | 'stderr' | 'log';
  chunk: string;
}

/** Long-lived services shared by all calls; created in buildApp, released on close. */
export interface ToolServices {
  readonly config: Config;
  readonly db: Db;
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
  /** Serializes changes to the same file (keyed by session and relative path). */
  readonly fileLocks: KeyedLock;
}

export interface ToolContext {
  readonly callId: string;
  readonly session: SessionRecord;
  /** The session's workspace, reached only through its runtime: no host paths. */
  readonly workspace: Workspace;
  /** Aborted on timeout, client disconnect or shutdown; long work must stop when it fires. */
  readonly signal: AbortSignal;
  readonly logger: ToolLogger;
  readonly limits: Config['limits'];
  readonly services: ToolServices;
  emit(chunk: OutputChunk): void;
}

export interface ToolInitContext {
  readonly services: ToolServices;
  readonly logger: ToolLogger;
}
