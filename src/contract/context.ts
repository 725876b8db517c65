// What a tool gets to work with. Tools import nothing from Fastify or routes: everything arrives here. The
// contract sits above the subsystems it describes (the session runtime, jobs, the code index, stores…), so
// it names their types directly; none of them imports the contract back (`npm run lint:layers`).
import type { Config } from '../config.js';
import type { CodeIndex } from '../code/code-index.js';
import type { CpuPool } from '../cpu/cpu-pool.js';
import type { LspService } from '../code/lsp/answers.js';
import type { JobManager } from '../jobs/job-manager.js';
import type { ShellManager } from '../jobs/shell-manager.js';
import type { CancelSignal } from '../lib/cancellation.js';
import type { KeyedLock } from '../lib/keyed-lock.js';
import type { ToolLogger } from '../lib/logger.js';
import type { OutputChunk } from '../lib/output-chunk.js';
import type { RuntimeManager } from '../runtime/manager.js';
import type { Egress } from '../network/egress.js';
import type { PreviewService } from '../preview/service.js';
import type { CommandRunner } from '../runtime/runner/runner.js';
import type { IoUsage, Workspace } from '../runtime/workspace.js';
import type { WorkspaceManager } from '../sandbox/workspaces.js';
import type { SnapshotService } from '../snapshots/service.js';
import type { FileReadStore } from '../store/file-reads.js';
import type { HistoryStore } from '../store/history.js';
import type { SessionRecord } from '../store/sessions.js';
import type { TodoStore } from '../store/todos.js';

/** Long-lived services shared by all calls; created in createServices, released on close. */
export interface ToolServices {
  readonly config: Config;
  readonly workspaces: WorkspaceManager;
  /** The sandbox choice and whether commands may run (commands start inside the session runtime). */
  readonly runner: CommandRunner;
  /** One runtime per live session: the only place workspace I/O and commands happen. */
  readonly runtimes: RuntimeManager;
  /** The egress proxy and its decisions: the only way to the network (web_fetch goes through it too). */
  readonly egress: Egress;
  /** Worker threads with deadlines for a call's CPU-heavy work (edit matching, HTML conversion). */
  readonly cpu: CpuPool;
  /** Previews of the session's servers: exposed ports, links, connections through the runtime. */
  readonly preview: PreviewService;
  /** Running and finished commands (run_command and the job tools). */
  readonly jobs: JobManager;
  /** The sessions' persistent shells (shell_* tools, Anthropic's bash); they live in the runtimes. */
  readonly shells: ShellManager;
  /** Parsed source files per workspace, for the code and project tools. */
  readonly codeIndex: CodeIndex;
  /** The sessions' language servers for the code tools; undefined when they are off (config `lsp`). */
  readonly lsp: LspService | undefined;
  /** What each session last read of each file (read-before-write safety). */
  readonly fileReads: FileReadStore;
  /** Previous versions of changed files, for undo_edit. */
  readonly history: HistoryStore;
  /** Each session's todo list (todo_read, todo_write). */
  readonly todos: TodoStore;
  /** Baselines, checkpoints, changes and fork copies of workspaces (store in the data dir). */
  readonly snapshots: SnapshotService;
  /** Serializes changes to the same file (keyed by session and relative path). */
  readonly fileLocks: KeyedLock;
  /** The parts of a call's context that come with its workspace. */
  callContext(session: SessionRecord, signal: CancelSignal): CallContextExtras;
}

export interface ToolContext {
  readonly callId: string;
  readonly session: SessionRecord;
  /** Aborted on timeout, client disconnect or shutdown; long work must stop when it fires. */
  readonly signal: AbortSignal;
  readonly logger: ToolLogger;
  readonly limits: Config['limits'];
  readonly services: ToolServices;
  /** The session's workspace, reached only through its runtime: no host paths. */
  readonly workspace: Workspace;
  emit(chunk: OutputChunk): void;
  /** The call's I/O so far; given by the layer that owns the workspace. */
  ioUsage?(): IoUsage;
}

/** How the pipeline's last step gets the parts of a call's context that come with its workspace. */
export type CallContextExtras = Omit<ToolContext, keyof CoreToolContext>;
type CoreToolContext = Pick<
  ToolContext,
  'callId' | 'session' | 'signal' | 'logger' | 'limits' | 'services' | 'emit'
>;

export interface ToolInitContext {
  readonly services: ToolServices;
  readonly logger: ToolLogger;
}
