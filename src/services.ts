// Builds the long-lived parts of one app — database, stores, workspaces, tool registry, pipeline,
// event hub, sweeper — and declares each one's lifecycle in one ordered list (`parts`), which session
// deletion, the sweep and close() iterate. Nothing here runs at import.
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config } from './config.js';
import type { ToolServices } from './contract/context.js';
import type { ToolLogger } from './lib/logger.js';
import { EventHub } from './engine/events.js';
import { Pipeline } from './engine/pipeline.js';
import { outcomeEnvelope } from './lib/envelope.js';
import { loadPluginTools } from './contract/plugins.js';
import { loadToolFolders } from './sources/folder/load.js';
import { sourceOf, ToolFolderWatcher } from './sources/folder/watch.js';
import { discoverMcpTools } from './sources/mcp/discover.js';
import { McpSessionClients } from './sources/mcp/session-clients.js';
import { ApprovalService } from './policies/approvals/service.js';
import { approvalsPolicy } from './policies/approvals/index.js';
import { duplicatesPolicy } from './policies/duplicates/index.js';
import { rateLimitPolicy } from './policies/rate-limit/index.js';
import { toolSwitchesPolicy } from './policies/tool-switches/index.js';
import { PolicyStates } from './contract/policy.js';
import { PIPELINE_STEPS, policiesOf } from './engine/steps.js';
import { closeAll, forgetSession, sweepAll, type Lifecycle } from './lib/lifecycle.js';
import type { RateLimitStore } from './policies/rate-limit/store.js';
import { ToolRegistry } from './contract/registry.js';
import type { ToolSwitches } from './policies/tool-switches/service.js';
import type { TurnMemory } from './policies/duplicates/turn-memory.js';
import type { AnyTool } from './contract/tool.js';
import { diskState } from './ops/disk.js';
import { Metrics, type SessionUsageMetric } from './ops/metrics.js';
import { EventLoopMonitor } from './ops/event-loop.js';
import { availableParallelism } from 'node:os';
import { CpuPool } from './cpu/cpu-pool.js';
import { EDIT_JOBS } from './edit/edit-work.js';
import { HTML_JOBS } from './network/html-job.js';
import { createTracing } from './ops/tracing.js';
import type { Tracing } from './ops/trace.js';
import { createJobManager, jobLimitsFor } from './jobs/job-manager.js';
import { ShellManager } from './jobs/shell-manager.js';
import { gateOnSandbox } from './contract/sandbox-gate.js';
import { createRunner, type RunnerOptions } from './runtime/runner/runner.js';
import { RuntimeManager } from './runtime/manager.js';
import type { RuntimeBackend } from './runtime/backends/types.js';
import { Workspace } from './runtime/workspace.js';
import { WorkspaceManager } from './sandbox/workspaces.js';
import { OverlayWorkspaces } from './sandbox/overlay-workspaces.js';
import { loadAdminKey, type AdminKey } from './store/admin-key.js';
import { AuditStore } from './store/audit.js';
import { BlobStore } from './store/blobs.js';
import type { SqlDatabase } from './store/sql.js';
import { openDatabaseOrExplain, prepareDataDir } from './ops/startup.js';
import { MIGRATIONS } from './migrations.js';
import { SessionStore } from './store/sessions.js';
import { StatsStore } from './store/stats.js';
import { FileReadStore } from './store/file-reads.js';
import { HistoryStore } from './store/history.js';
import { TodoStore } from './store/todos.js';
import { KeyedLock } from './lib/keyed-lock.js';
import { BUILTIN_TOOLS } from './tools/index.js';
import { CodeIndex } from './code/code-index.js';
import { LspManager } from './code/lsp/manager.js';
import { newCallId } from './lib/call-id.js';
import { RUNTIME_PATH, serverTable } from './code/lsp/servers.js';
import { effectiveLimits } from './runtime/runner/limits.js';
import { CheckpointStore } from './store/checkpoints.js';
import { SnapshotService } from './snapshots/service.js';
import { Egress } from './network/egress.js';
import { Ingress } from './preview/ingress.js';
import { linkKey } from './preview/links.js';
import { previewAuditEntry } from './preview/audit.js';
import { PreviewService } from './preview/service.js';
import { ExposedPortStore } from './store/exposed-ports.js';
import { connectionAuditEntry } from './network/audit.js';
import { LeaseStore } from './store/leases.js';
import { SessionRouting } from './store/session-routing.js';
import { SessionOwnership } from './ops/session-ownership.js';
import { createCapacity, registerCapacityMetrics, type Capacity } from './ops/capacity/index.js';
import { followSwitches } from './policies/tool-switches/follow.js';

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

export interface ReplicaServices {
  readonly ownership: SessionOwnership;
  readonly routing: SessionRouting;
}

export interface ServiceOptions {
  /** Replaces the built-in tool list (tests). */
  tools?: AnyTool[];
  /** Command sandbox overrides (tests). */
  runner?: RunnerOptions;
}

/**
 * Execution turned off at start (TOOLGATE_SANDBOX=auto or bwrap where bubblewrap cannot run) is said once,
 * in the log, with the reason and the fix: otherwise only /readyz (executionEnabled: false) and every
 * run_command's SANDBOX_UNAVAILABLE would tell.
 */
function warnExecutionDisabled(logger: ToolLogger, reason: string): void {
  logger.warn(
    {
      reason,
      fix:
        'in a container, run it with the security options docker-compose.yml sets for the toolgate ' +
        'service (security_opt: its seccomp profile, apparmor=unconfined, systempaths=unconfined; see ' +
        'docs/sandbox.md); on a host, install bubblewrap and util-linux (prlimit) and allow unprivileged ' +
        'user namespaces; or set TOOLGATE_SANDBOX=none to run commands without isolation',
    },
    'execution is disabled: run_command and the other execution tools answer SANDBOX_UNAVAILABLE',
  );
}

/**
 * Each configured runtime image the engine lacks (docker), said once at start with how to build it:
 * sessions of that image are refused (IMAGE_NOT_FOUND) until it is there; /readyz names them too.
 */
async function warnMissingImages(logger: ToolLogger, backend: RuntimeBackend): Promise<void> {
  for (const { key, image } of (await backend.missingImages?.()) ?? []) {
    logger.warn(
      {
        image,
        imageKey: key,
        fix: 'build it with scripts/build-runtime-images.sh (docker/runtime-images/README.md)',
      },
      `runtime image ${image} (image key "${key}") is not on the Docker engine: sessions that use it are refused with IMAGE_NOT_FOUND until it is built`,
    );
  }
}

export async function createServices(
  config: Config,
  logger: ToolLogger,
  options: ServiceOptions = {},
): Promise<Services> {
  await prepareDataDir(config.dataDir, ['workspaces', 'snapshots']);
  const workspaces = new WorkspaceManager(path.join(config.dataDir, 'workspaces'));
  const tracing = createTracing(config.telemetry, logger);
  const runner = await createRunner(config.sandbox, config.dataDir, options.runner, config.containers);
  if (!runner.status.available) warnExecutionDisabled(logger, runner.status.detail);
  await warnMissingImages(logger, runner.runtimeBackend);
  const toolFolders = config.toolsDir
    ? await loadToolFolders(config.toolsDir, { defaultCategory: config.toolFolders.category })
    : [];
  workspaces.overlays = new OverlayWorkspaces(config.dataDir, runner.runtimeBackend.name === 'bwrap');
  // Language servers run in the session runtime like commands; their packages are shown to it read-only.
  const lspServers = config.lsp.enabled
    ? serverTable((binary) => RUNTIME_PATH.some((dir) => existsSync(path.join(dir, binary))))
    : undefined;
  // What only this process uses, and empties at its start, is its own when replicas share the data dir.
  const own = (name: string) => (config.replica ? `${name}-${config.replica.id}` : name);
  // Previews: the socket every session runtime dials to carry a connection to one of its ports out.
  // Replicas share the data dir's ingress directory, each with a socket in a subdirectory of its own
  // (named from its id, whatever characters that has).
  const ingress = new Ingress(
    path.join(config.dataDir, 'ingress'),
    config.replica
      ? `r-${createHash('sha256').update(config.replica.id).digest('hex').slice(0, 16)}`
      : 'main',
  );
  // Listening before any runtime starts: every runtime binds its directory (the MCP servers' discovery
  // below starts runtimes already), and bwrap refuses a bind whose source does not exist.
  await ingress.start();
  const runtimes = new RuntimeManager(runner.runtimeBackend, {
    workspacesDir: workspaces.baseDir,
    ingressDir: ingress.root,
    overlayFor: (id) => workspaces.overlays?.mountFor(id),
    // The whole tools dir, so folders added while the service runs are there too (hot reload).
    readOnlyPaths: [
      ...(config.toolsDir ? [config.toolsDir] : []),
      ...Object.values(config.mcpServers).flatMap((server) => server.readOnlyPaths),
      ...(lspServers?.readOnlyPaths ?? []),
    ],
    idleMs: config.runtime.idleSeconds * 1000,
    hangMs: config.runtime.hangSeconds * 1000,
    quotaBytes: config.limits.workspaceMaxBytes,
    cgroups: runner.cgroups,
    logger,
    tracing,
  });
  const jobs = await createJobManager(
    runner,
    path.join(config.dataDir, own('jobs')),
    jobLimitsFor(config.limits.outputMaxBytes),
  );
  const shells = new ShellManager({
    perSession: config.limits.shellsPerSession,
    idleMs: config.limits.shellIdleSeconds * 1000,
  });
  // Runtimes that outlived the previous life of the service (containers, pods) bring their jobs back,
  // and their persistent shells.
  runtimes.onReattach = async (runtime) => {
    await jobs.adopt(runtime);
    await shells.adopt(runtime);
  };
  jobs.adopted = (sessionId) => runtimes.reattached(sessionId);

  const registry = new ToolRegistry();
  for (const tool of options.tools ?? BUILTIN_TOOLS)
    registry.add(gateOnSandbox(tool, runner.status), 'builtin');
  for (const { folder, tool } of toolFolders) {
    registry.add(gateOnSandbox(tool, runner.status), sourceOf(path.basename(folder)));
  }
  const mcpClients = new McpSessionClients(config.mcpServers, logger, config.runtime.idleSeconds * 1000);
  for (const { server, tools } of await discoverMcpTools(config, {
    runtimes,
    workspaces,
    clients: mcpClients,
    logger,
  })) {
    for (const tool of tools) registry.add(gateOnSandbox(tool, runner.status), `mcp ${server}`);
  }
  if (config.pluginsDir) {
    for (const { file, tools } of await loadPluginTools(config.pluginsDir)) {
      for (const tool of tools) registry.add(gateOnSandbox(tool, runner.status), `plugin ${file}`);
    }
  }

  const adminKey = await loadAdminKey(config.dataDir, config.apiKey);
  const db = await openDatabaseOrExplain({ dataDir: config.dataDir, url: config.database.url }, MIGRATIONS);
  const sessions = new SessionStore(db, { idleTtlMs: config.sessions.idleTtlSeconds * 1000 });
  // Overlay dirs of forks deleted while the service was down mid-delete (now = 0: expired ones still count).
  await workspaces.overlays.sweepOrphans(async (id) => (await sessions.get(id, 0)) !== undefined);
  const metrics = new Metrics();
  metrics.setSource('toolgate_active_sessions', () => sessions.countActive());
  metrics.setSource('toolgate_running_jobs', () => jobs.runningCount());
  metrics.setRuntimeSource(() => runtimes.stats());
  metrics.setDiskSource(() => diskState(config.dataDir));
  const eventLoop = new EventLoopMonitor();
  eventLoop.start();
  metrics.setEventLoopSource(() => eventLoop.state());
  const cpu = new CpuPool({
    workers: config.limits.cpuWorkers || Math.max(4, Math.min(8, availableParallelism())),
    jobMs: config.limits.cpuJobMs,
    memoryMb: config.limits.cpuJobMemoryMb,
    preload: [EDIT_JOBS, HTML_JOBS],
    onJobEnd: (label, outcome) => metrics.cpuJobEnded(label, outcome),
  });
  metrics.setCpuSource(() => ({ running: cpu.running, queued: cpu.queued }));
  // Log bytes of every session with jobs; workspace numbers of those whose runtime runs (none is started).
  metrics.setSessionUsageSource(async () => {
    const running = new Map(runtimes.running().map((runtime) => [runtime.sessionId, runtime]));
    const ids = new Set([...jobs.sessionsWithJobs(), ...running.keys()]);
    return Promise.all(
      [...ids].map(async (sessionId): Promise<SessionUsageMetric> => {
        const usage = await running
          .get(sessionId)
          ?.diskUsage()
          .catch(() => null);
        return {
          sessionId,
          logBytes: jobs.logBytes(sessionId),
          ...(usage ? { workspaceBytes: usage.bytes, workspaceFiles: usage.files } : {}),
        };
      }),
    );
  });
  // A replica's crash journal is replayed when that replica starts again (same id).
  const audit = await AuditStore.open(
    db,
    path.join(config.dataDir, config.replica ? `audit-${config.replica.id}.journal` : 'audit.journal'),
  );
  const stats = new StatsStore(db, audit);
  const folderWatcher = config.toolsDir
    ? new ToolFolderWatcher(config.toolsDir, {
        registry,
        audit,
        logger,
        prepare: (tool) => gateOnSandbox(tool, runner.status),
        options: { defaultCategory: config.toolFolders.category },
      })
    : undefined;
  folderWatcher?.start(toolFolders);
  const events = new EventHub();
  const blobs = new BlobStore(path.join(config.dataDir, 'blobs'), config.blobs.ttlSeconds * 1000);
  // Each connection of a session, when it ends or is refused: an audit row, an event, the counters.
  const egress = new Egress({
    socketsDir: path.join(config.dataDir, own('egress')),
    openRanges: config.network.openRanges,
    ...(config.network.hostsFile !== undefined ? { hostsFile: config.network.hostsFile } : {}),
    connectTimeoutMs: config.network.connectTimeoutMs,
    spliceAfterBytes: config.network.spliceAfterBytes,
    quotaBytes: config.limits.egressBytes,
    sink: (record) => {
      const entry = connectionAuditEntry(record);
      audit.record(entry);
      // The audit row's id, so a timeline shows the live event and the row as one entry.
      events.publish(record.sessionId, 'network_connection', { callId: entry.callId, ...record });
      metrics.egressConnection(record);
    },
  });
  runtimes.egress = (sessionId, policy, openRanges, stable) =>
    egress.openSessionSocket(sessionId, policy, openRanges, { stable });
  const preview = new PreviewService(
    config,
    new ExposedPortStore(db),
    runtimes,
    ingress,
    linkKey(adminKey.key),
    (record) => {
      audit.record(previewAuditEntry(record));
      metrics.previewRequest(record);
    },
  );
  const shutdown = new AbortController();
  // Every running call listens on it and batches run many at once: many listeners is normal, not a leak.
  setMaxListeners(0, shutdown.signal);
  const fileReads = new FileReadStore(db);
  const history = new HistoryStore(db, path.join(config.dataDir, 'history'));
  const fileLocks = new KeyedLock();
  const snapshots = new SnapshotService(
    path.join(config.dataDir, 'snapshots'),
    new CheckpointStore(db),
    fileLocks,
    {
      maxEntries: 200_000,
    },
  );
  const lsp = lspServers && {
    manager: new LspManager({
      idleMs: config.lsp.idleSeconds * 1000,
      startBudgetMs: config.lsp.startSeconds * 1000,
      // A command's limits, the longest CPU time of all: a server lives as long as it is used.
      limits: effectiveLimits(600_000),
      root: (runtime) => runtime.commandRoot,
      spec: (server, runtime) => lspServers.spec(server, runtime.nodePath),
      // One audit row per server start, failed start and exit, on the session's log (not counted as calls).
      onServer: ({ sessionId, language, event, durationMs, detail }) =>
        audit.record({
          callId: newCallId(),
          ts: Date.now(),
          sessionId,
          tool: `language_server:${language}`,
          category: 'code',
          status: event === 'start failed' ? 'error' : 'success',
          errorCode: event === 'start failed' ? 'TOOL_FAILED' : null,
          httpStatus: event === 'start failed' ? 422 : 200,
          durationMs,
          bytesIn: 0,
          bytesOut: 0,
          caller: 'toolgate',
          entryPoint: 'admin',
          inputSummary: JSON.stringify({ language, event, ...(detail ? { detail } : {}) }),
        }),
    }),
    budgetMs: config.lsp.budgetMs,
  };
  const base: ToolServices = {
    config,
    workspaces,
    runner,
    runtimes,
    egress,
    preview,
    jobs,
    cpu,
    shells,
    fileReads,
    history,
    todos: new TodoStore(db),
    fileLocks,
    snapshots,
    codeIndex: new CodeIndex(),
    lsp,
    callContext: (session, signal) => {
      const workspace = new Workspace(runtimes.for(session), signal);
      return { workspace, ioUsage: () => workspace.ioUsage() };
    },
  };

  for (const { tool } of registry.list()) await tool.init?.({ services: base, logger });

  // Every policy in the step list makes its state here (a rate limit on Redis may refuse to start).
  const policies = await PolicyStates.create(policiesOf(PIPELINE_STEPS), {
    config,
    db,
    logger,
    audit,
    events,
  });
  const switches = policies.stateOf(toolSwitchesPolicy);
  const turns = policies.stateOf(duplicatesPolicy);
  const rateLimitStore = policies.stateOf(rateLimitPolicy);
  const pipeline = new Pipeline({
    policies,
    registry,
    services: base,
    audit,
    events,
    logger,
    shutdownSignal: shutdown.signal,
    tracing,
    onCallEnd(info) {
      metrics.callEnded(info);
      // The operator looking at a session does not keep it from expiring idle.
      if (info.operatorRead) return;
      // Last-use tracking must never fail a call (e.g. a busy database during shutdown).
      sessions.touch(info.sessionId).catch((err: unknown) => {
        logger.warn({ err, sessionId: info.sessionId }, 'could not record session use');
      });
    },
  });

  const approvals = new ApprovalService(
    policies.stateOf(approvalsPolicy),
    sessions,
    audit,
    events,
    (request) => pipeline.execute(request).then(outcomeEnvelope),
    logger,
  );

  const replica = openReplica(config, logger, db);
  if (replica) {
    // Another replica took a session (this one missed its heartbeats): what runs for it here stops.
    replica.ownership.onLost = async (id) => {
      lsp?.manager.forget(id);
      await mcpClients.closeSession(id);
      await runtimes.get(id)?.detach();
    };
    // A container runtime outlives the replica that held its session: the new holder attaches to it.
    replica.ownership.onGained = (id) => runtimes.reattachSession(id, (sid) => sessions.get(sid));
    replica.ownership.start();
    replica.stopFollowing = followSwitches(switches, db, replica.heartbeatMs, logger);
  }
  // One replica holds every live session; one of several, those it owns.
  const capacity = createCapacity(config, runner.runtimeBackend.name, os.totalmem(), runtimes, {
    live: () => (replica ? Promise.resolve(replica.ownership.sessions().length) : sessions.countActive()),
    ofKey: (apiKey) => sessions.countActiveOfKey(apiKey),
  });
  registerCapacityMetrics(metrics.registry, capacity);

  const retentionMs = config.audit.retentionDays * 86_400_000;
  // What each part forgets for a deleted session, sweeps and closes, in the order all three run. The
  // order is the shutdown order and it matters:
  // - what runs commands for a session (jobs, MCP clients) stops before the runtime that confines them;
  // - history and snapshots of a session go before its runtime; the runtime empties the workspace from
  //   inside and stops, and only then is the (now empty, with no process of the session left to swap
  //   anything in it) workspace directory removed;
  // - a replica's session leases go right after its runtimes stopped (another replica may then start
  //   one on the same workspace at once), before anything else it holds;
  // - tools shut down once no runtime runs; the code index and event channels after them;
  // - the SQLite-backed stores (audit, the policies') and the rate-limit counters close before the
  //   database; the sweep removes containers and pods of gone sessions (container backends; after the
  //   expired sessions were deleted, so their runtimes count as gone), runs audit retention, then the
  //   policies' sweeps (idempotency keys, approvals:
  //   separate tables, in either order), then blobs;
  // - tracing last, so the spans of calls that ended while closing are sent too.
  // Session rows themselves are deleted first, by deleteSession, before any part forgets the session.
  const parts: Lifecycle[] = [
    // No tool folder is loaded while the rest closes.
    { name: 'tool-folders', close: () => folderWatcher?.close() },
    { name: 'jobs', forgetSession: (id) => jobs.killSession(id), close: () => jobs.close() },
    // The shells themselves die with the runtime; this lets go of what the service knew of them.
    { name: 'shells', forgetSession: (id) => shells.forgetSession(id), close: () => shells.close() },
    {
      name: 'mcp-clients',
      forgetSession: (id) => mcpClients.closeSession(id),
      close: () => mcpClients.close(),
    },
    // Language servers are processes of the runtime: stopped politely before it.
    {
      name: 'language-servers',
      forgetSession: (id) => lsp?.manager.forget(id),
      close: () => lsp?.manager.close(),
    },
    { name: 'history', forgetSession: (id) => history.removeSession(id) },
    { name: 'snapshots', forgetSession: (id) => snapshots.removeSession(id) },
    {
      name: 'runtimes',
      forgetSession: (id) => runtimes.remove(id),
      // Containers and pods of sessions that are gone (deleted, expired, or unknown to this data dir).
      sweep: () => runtimes.sweep(async (id) => (await sessions.get(id)) !== undefined),
      close: () => runtimes.close(),
    },
    // After the runtimes stopped: the other replicas may take the sessions over at once.
    {
      name: 'leases',
      forgetSession: (id) => replica?.ownership.release(id),
      close: async () => {
        replica?.stopFollowing();
        await replica?.ownership.close();
      },
    },
    // After the runtimes: their sockets are closed with them; what is left (web_fetch) goes here.
    { name: 'egress', forgetSession: (id) => egress.forgetSession(id), close: () => egress.close() },
    { name: 'preview', forgetSession: (id) => preview.forgetSession(id), close: () => preview.close() },
    { name: 'workspaces', forgetSession: (id) => workspaces.remove(id) },
    {
      name: 'tools',
      close: async () => {
        for (const { tool } of registry.list()) await tool.shutdown?.();
      },
    },
    // No call is left to give work to the workers; a job still running is ended with its worker.
    { name: 'cpu-workers', close: () => cpu.close() },
    { name: 'event-loop', close: () => eventLoop.stop() },
    {
      name: 'code-index',
      forgetSession: (id) => base.codeIndex.forget(id),
      close: () => base.codeIndex.close(),
    },
    { name: 'events', forgetSession: (id) => events.forget(id) },
    {
      name: 'audit',
      sweep: (now) => (retentionMs > 0 ? audit.deleteOlderThan(now - retentionMs) : 0),
      close: () => audit.close(),
    },
    // The policies' own, in step order: idempotency (sweep), rate-limit (close), approvals (sweep).
    ...policies.lifecycles(),
    { name: 'blobs', sweep: (now) => blobs.sweep(now) },
    { name: 'database', close: () => db.close() },
    // Bounded, and never throws.
    { name: 'tracing', close: () => tracing?.shutdown() },
  ];

  const deleteSession = async (id: string): Promise<boolean> => {
    const existed = await sessions.delete(id);
    await forgetSession(parts, id);
    return existed;
  };

  const sweep = async (now = Date.now()) => {
    const expired = await sessions.expiredIds(now);
    for (const id of expired) await deleteSession(id);
    const swept = await sweepAll(parts, now);
    return { sessions: expired.length, auditRows: swept.get('audit') ?? 0 };
  };

  const sweeper = setInterval(() => {
    sweep().catch((err) => logger.error({ err }, 'session sweep failed'));
  }, config.sessions.sweepIntervalSeconds * 1000);
  sweeper.unref();
  runtimes.reattachRunning((id) => sessions.get(id));
  runtimes.warm();

  return {
    ...base,
    db,
    adminKey,
    sessions,
    audit,
    stats,
    blobs,
    registry,
    switches,
    turns,
    pipeline,
    events,
    approvals,
    rateLimitStore,
    metrics,
    eventLoop,
    tracing,
    shutdown,
    sweep,
    deleteSession,
    parts,
    folderWatcher,
    replica: replica && { ownership: replica.ownership, routing: replica.routing },
    capacity,
    async close() {
      clearInterval(sweeper);
      shutdown.abort(new Error('shutting down'));
      await closeAll(parts);
    },
  };
}

/** With replica config: its leases and the routing reads, on the database every store shares. */
function openReplica(
  config: Config,
  logger: ToolLogger,
  db: SqlDatabase,
): (ReplicaServices & { readonly heartbeatMs: number; stopFollowing: () => void }) | undefined {
  if (!config.replica) return undefined;
  const { id, url, leaseMs, heartbeatMs } = config.replica;
  return {
    heartbeatMs,
    ownership: new SessionOwnership(new LeaseStore(db), { id, url }, { leaseMs, heartbeatMs }, logger),
    routing: new SessionRouting(db),
    stopFollowing: () => undefined,
  };
}
