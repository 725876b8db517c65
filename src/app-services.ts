// The shape of one app's long-lived parts (Services): what the routes reach as app.services and tests
// through createServices; and the options tests build it with. src/services.ts builds it from each
// subsystem's wiring; this file only says what it holds, so the composition root stays a list of steps.
import type { ToolServices } from './contract/context.js';
import type { ToolRegistry } from './contract/registry.js';
import type { AnyTool } from './contract/tool.js';
import type { EventHub } from './engine/events.js';
import type { Pipeline } from './engine/pipeline.js';
import type { Lifecycle } from './lib/lifecycle.js';
import type { Capacity } from './ops/capacity/index.js';
import type { EventLoopMonitor } from './ops/event-loop.js';
import type { Metrics } from './ops/metrics.js';
import type { Tracing } from './ops/trace.js';
import type { ReplicaServices } from './ops/wiring.js';
import type { RunnerOptions } from './runtime/runner/runner.js';
import type { ApprovalService } from './policies/approvals/service.js';
import type { TurnMemory } from './policies/duplicates/turn-memory.js';
import type { RateLimitStore } from './policies/rate-limit/store.js';
import type { ToolSwitches } from './policies/tool-switches/service.js';
import type { ToolFolderWatcher } from './sources/folder/watch.js';
import type { AdminKey } from './store/admin-key.js';
import type { AuditStore } from './store/audit.js';
import type { BlobStore } from './store/blobs.js';
import type { SessionStore } from './store/sessions.js';
import type { SqlDatabase } from './store/sql.js';
import type { StatsStore } from './store/stats.js';

export type { ReplicaServices } from './ops/wiring.js';

export interface Services extends ToolServices {
  /** The database itself: stores are built on it here; tools get their stores, never the handle. */
  readonly db: SqlDatabase;
  readonly adminKey: AdminKey;
  readonly sessions: SessionStore;
  readonly audit: AuditStore;
  readonly stats: StatsStore;
  /** Uploaded archives waiting to seed sessions (POST /v1/blobs). */
  readonly blobs: BlobStore;
  readonly registry: ToolRegistry;
  /** The operator's live enable/disable switches of tools and categories. */
  readonly switches: ToolSwitches;
  /** What each batch or X-Toolgate-Turn already called (duplicate detection). */
  readonly turns: TurnMemory;
  readonly pipeline: Pipeline;
  readonly events: EventHub;
  readonly approvals: ApprovalService;
  /** Counters for rate limits (memory, or Redis when REDIS_URL is set); also guards failed auth per IP. */
  readonly rateLimitStore: RateLimitStore;
  /** Prometheus metrics; other services may register gauge sources (e.g. running jobs). */
  readonly metrics: Metrics;
  /** The event loop's utilisation and stalls (/metrics, /readyz). */
  readonly eventLoop: EventLoopMonitor;
  /** OpenTelemetry tracing; undefined when it is off (no OTLP endpoint configured). */
  readonly tracing: Tracing | undefined;
  /** Aborted when the app closes: running tool calls stop. */
  readonly shutdown: AbortController;
  /** Tool folders loaded again as they change (undefined without TOOLGATE_TOOLS_DIR). */
  readonly folderWatcher: ToolFolderWatcher | undefined;
  /** This process as one of several replicas (undefined: the only one, nothing is leased or forwarded). */
  readonly replica: ReplicaServices | undefined;
  /** What this replica takes on: admits session creates and runtime starts, reports each limit. */
  readonly capacity: Capacity;
  /** Every part's lifecycle, in the order deletion, sweeping and close run them (see createServices). */
  readonly parts: readonly Lifecycle[];
  /** Removes expired sessions (rows and workspaces) and audit rows past retention. */
  sweep(now?: number): Promise<{ sessions: number; auditRows: number }>;
  deleteSession(id: string): Promise<boolean>;
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** Replaces the built-in tool list (tests). */
  tools?: AnyTool[];
  /** Command sandbox overrides (tests). */
  runner?: RunnerOptions;
}
