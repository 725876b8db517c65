// The composition root: builds the long-lived parts of one app from each subsystem's wiring (the
// `wiring.ts` in its folder), in start order, and declares each one's lifecycle in one ordered list
// (`parts`), which session deletion, the sweep and close() iterate. Nothing here runs at import.
import type { ServiceOptions, Services } from './app-services.js';
import { findLanguageServers, wireCode } from './code/wiring.js';
import type { Config } from './config.js';
import type { CallRequest } from './contract/call.js';
import { wireToolServices } from './contract/wiring.js';
import { wireCpu } from './cpu/wiring.js';
import { PIPELINE_STEPS, policiesOf } from './engine/steps.js';
import { wireEvents, wirePipeline } from './engine/wiring.js';
import { wireJobs } from './jobs/wiring.js';
import { closeAll, type Lifecycle } from './lib/lifecycle.js';
import type { ToolLogger } from './lib/logger.js';
import { MIGRATIONS } from './migrations.js';
import { wireEgress, type ConnectionAnnouncer } from './network/wiring.js';
import { Metrics } from './ops/metrics.js';
import { prepareDataDir } from './ops/startup.js';
import { startSweeper, wireCapacity, wireMetrics, wireReplica, wireTracing } from './ops/wiring.js';
import { wireApprovals, wirePolicies } from './policies/wiring.js';
import { openIngress, wirePreview } from './preview/wiring.js';
import { onRuntimePath, runtimesLifecycle, wireRunner, wireRuntimes } from './runtime/wiring.js';
import { wireWorkspaces } from './sandbox/wiring.js';
import { wireSnapshots } from './snapshots/wiring.js';
import { loadFolderTools, watchToolFolders, wireToolSources } from './sources/wiring.js';
import { openDatabase, openRecordStores } from './store/wiring.js';

export type { ReplicaServices, ServiceOptions, Services } from './app-services.js';

export async function createServices(
  config: Config,
  logger: ToolLogger,
  options: ServiceOptions = {},
): Promise<Services> {
  await prepareDataDir(config.dataDir, ['workspaces', 'snapshots']);
  const run = await startRuntimes(config, logger, options);
  const kept = await openStores(config, logger, run);
  const calls = await wireCalls(config, logger, run, kept);
  const parts = lifecycleOrder(run, kept, calls);
  const { store, records, base } = kept;
  const { policies, engine } = calls;
  const { stop: stopSweeping, ...sweeper } = startSweeper(parts, store.sessions, config.sessions, logger);
  run.runtimes.reattachRunning((id) => store.sessions.get(id));
  run.runtimes.warm();
  return {
    ...base,
    db: store.db,
    adminKey: store.adminKey,
    sessions: store.sessions,
    audit: records.audit,
    stats: records.stats,
    blobs: records.blobs,
    registry: run.tools.registry,
    switches: policies.switches,
    turns: policies.turns,
    pipeline: engine.pipeline,
    events: kept.hub.events,
    approvals: calls.approvals,
    rateLimitStore: policies.rateLimitStore,
    metrics: kept.metrics,
    eventLoop: kept.ops.eventLoop,
    tracing: run.telemetry.tracing,
    shutdown: engine.shutdown,
    ...sweeper,
    parts,
    folderWatcher: kept.folders.folderWatcher,
    replica: calls.replica,
    capacity: calls.capacity,
    async close() {
      stopSweeping();
      engine.shutdown.abort(new Error('shutting down'));
      await closeAll(parts);
    },
  };
}

/** What runs sessions: tracing, the sandbox, workspaces, the ingress, runtimes, jobs and the tools. */
async function startRuntimes(config: Config, logger: ToolLogger, options: ServiceOptions) {
  const telemetry = wireTracing(config.telemetry, logger);
  const { tracing } = telemetry;
  const runner = await wireRunner(config, logger, options.runner);
  const toolFolders = await loadFolderTools(config);
  const sandbox = wireWorkspaces(config.dataDir, runner.runtimeBackend.name);
  const { workspaces } = sandbox;
  const languageServers = findLanguageServers(config.lsp, onRuntimePath);
  const lspPaths = languageServers?.readOnlyPaths ?? [];
  const ingress = await openIngress(config);
  const runtimes = wireRuntimes(config, logger, { runner, workspaces, ingress, tracing, lspPaths });
  const work = await wireJobs(config, { runner, runtimes });
  const sources = { builtins: options.tools, toolFolders, sandbox: runner.status, runtimes, workspaces };
  const tools = await wireToolSources(config, logger, sources);
  return { telemetry, runner, toolFolders, sandbox, languageServers, ingress, runtimes, work, tools };
}

/** The database, the stores and metrics on it, the CPU pool, egress, previews, snapshots, code. */
async function openStores(config: Config, logger: ToolLogger, run: Running) {
  const { runner, sandbox, ingress, runtimes, work, tools, toolFolders } = run;
  const store = await openDatabase(config, MIGRATIONS);
  const { db, sessions, adminKey } = store;
  // Overlay dirs of forks deleted while the service was down mid-delete (now = 0: expired ones still count).
  await sandbox.overlays.sweepOrphans(async (id) => (await sessions.get(id, 0)) !== undefined);
  const metrics = new Metrics();
  const cpu = wireCpu(config.limits, metrics, runtimes.cpuGroups?.threadsFile);
  const ops = wireMetrics(metrics, config.dataDir, { sessions, jobs: work.jobs, runtimes, cpu: cpu.cpu });
  const records = await openRecordStores(config, db);
  const { audit } = records;
  const { registry } = tools;
  const folders = watchToolFolders(config, logger, { registry, audit, sandbox: runner.status, toolFolders });
  const hub = wireEvents();
  const { events } = hub;
  const announce: ConnectionAnnouncer = (record, callId) =>
    events.publish(record.sessionId, 'network_connection', { callId, ...record });
  const network = wireEgress(config, { runtimes, audit, metrics, announce });
  const preview = wirePreview(config, { db, runtimes, ingress, adminKey, audit, metrics });
  const snapshots = wireSnapshots(config.dataDir, db);
  const code = wireCode(config.lsp, run.languageServers, audit, cpu.cpu);
  const toolParts = { sandbox, runner, runtimes, network, preview, work, cpu, records, snapshots, code };
  const base = await wireToolServices(config, logger, registry, toolParts);
  return { store, metrics, cpu, ops, records, folders, hub, network, preview, snapshots, code, base };
}

/** What a call goes through: the policies' states, the pipeline, approvals; the replica and its capacity. */
async function wireCalls(config: Config, logger: ToolLogger, run: Running, kept: Kept) {
  const { runtimes, tools } = run;
  const { db, sessions } = kept.store;
  const { metrics, records, base: services } = kept;
  const { events } = kept.hub;
  const { audit } = records;
  const policies = await wirePolicies(policiesOf(PIPELINE_STEPS), { config, db, logger, audit, events });
  const { registry } = tools;
  const { tracing } = run.telemetry;
  const pipelineParts = { policies: policies.states, registry, services, audit, events, tracing, metrics };
  const engine = wirePipeline(logger, { ...pipelineParts, sessions });
  const execute = (request: CallRequest) => engine.pipeline.execute(request);
  const approvals = wireApprovals(policies, { sessions, audit, events, logger, execute });
  const { replica, lifecycle: leases } = wireReplica(config, logger, db, {
    onLost: async (id) => {
      kept.code.lsp?.manager.forget(id);
      await tools.mcpClients.closeSession(id);
      await runtimes.get(id)?.detach();
    },
    onGained: (id) => runtimes.reattachSession(id, (sid) => sessions.get(sid)),
    follow: policies.followSwitches,
  });
  const backendName = run.runner.runtimeBackend.name;
  const capacity = wireCapacity(config, { backendName, runtimes, sessions, replica, metrics });
  return { policies, engine, approvals, replica, leases, capacity };
}

type Running = Awaited<ReturnType<typeof startRuntimes>>;
type Kept = Awaited<ReturnType<typeof openStores>>;
type Calls = Awaited<ReturnType<typeof wireCalls>>;

/**
 * What each part forgets for a deleted session, sweeps and closes, in the order all three run (session
 * rows are deleted first, by deleteSession). The order is the shutdown order and it matters:
 * - what runs commands for a session (jobs, MCP clients, language servers) stops before its runtime;
 * - history and snapshots of a session go before its runtime; the runtime empties the workspace from
 *   inside and stops, and only then is the (now empty, with no process of the session left to swap
 *   anything in it) workspace directory removed;
 * - a replica's session leases go right after its runtimes stopped (another replica may then start
 *   one on the same workspace at once), before anything else it holds;
 * - egress after the runtimes (their sockets close with them; what is left, web_fetch, goes there);
 * - tools shut down once no runtime runs; the code index and event channels after them;
 * - the SQLite-backed stores (audit, the policies') and the rate-limit counters close before the
 *   database; the sweep removes containers and pods of gone sessions (after the expired sessions
 *   were deleted, so their runtimes count as gone), runs audit retention, then the policies' sweeps
 *   (idempotency keys, approvals: separate tables, in either order), then blobs;
 * - tracing last, so the spans of calls that ended while closing are sent too.
 */
function lifecycleOrder(run: Running, kept: Kept, calls: Calls): Lifecycle[] {
  return [
    kept.folders.lifecycle,
    run.work.lifecycles.jobs,
    run.work.lifecycles.shells,
    run.tools.lifecycles.mcpClients,
    kept.code.lifecycles.languageServers,
    kept.records.lifecycles.history,
    kept.snapshots.lifecycle,
    runtimesLifecycle(run.runtimes, kept.store.sessions),
    calls.leases,
    kept.network.lifecycle,
    kept.preview.lifecycle,
    run.sandbox.lifecycle,
    run.tools.lifecycles.tools,
    kept.cpu.lifecycle,
    kept.ops.lifecycle,
    kept.code.lifecycles.codeIndex,
    kept.hub.lifecycle,
    kept.records.lifecycles.audit,
    ...calls.policies.lifecycles,
    kept.records.lifecycles.blobs,
    kept.store.lifecycle,
    run.telemetry.lifecycle,
  ];
}
