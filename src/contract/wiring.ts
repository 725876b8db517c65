// The tool context's wiring: the long-lived services every tool call gets (ToolServices), made of what
// each subsystem's wiring returned, and each registered tool's init on them. src/services.ts composes it.
import type { CodeParts } from '../code/wiring.js';
import type { Config } from '../config.js';
import type { CpuPool } from '../cpu/cpu-pool.js';
import type { JobParts } from '../jobs/wiring.js';
import type { ToolLogger } from '../lib/logger.js';
import type { Egress } from '../network/egress.js';
import type { PreviewService } from '../preview/service.js';
import type { RuntimeManager } from '../runtime/manager.js';
import type { CommandRunner } from '../runtime/runner/runner.js';
import { Workspace } from '../runtime/workspace.js';
import type { SandboxParts } from '../sandbox/wiring.js';
import type { SnapshotParts } from '../snapshots/wiring.js';
import type { RecordParts } from '../store/wiring.js';
import type { ToolServices } from './context.js';
import type { ToolRegistry } from './registry.js';

/** The tools' services, with every registered tool initialised on them (in registry order). */
export async function wireToolServices(
  config: Config,
  logger: ToolLogger,
  registry: ToolRegistry,
  parts: {
    sandbox: SandboxParts;
    runner: CommandRunner;
    runtimes: RuntimeManager;
    network: { egress: Egress };
    preview: { preview: PreviewService };
    work: JobParts;
    cpu: { cpu: CpuPool };
    records: RecordParts;
    snapshots: SnapshotParts;
    code: CodeParts;
  },
): Promise<ToolServices> {
  const { runtimes, records, snapshots, code } = parts;
  const services: ToolServices = {
    config,
    workspaces: parts.sandbox.workspaces,
    runner: parts.runner,
    runtimes,
    egress: parts.network.egress,
    preview: parts.preview.preview,
    jobs: parts.work.jobs,
    cpu: parts.cpu.cpu,
    shells: parts.work.shells,
    fileReads: records.fileReads,
    history: records.history,
    todos: records.todos,
    fileLocks: snapshots.fileLocks,
    snapshots: snapshots.snapshots,
    codeIndex: code.codeIndex,
    lsp: code.lsp,
    callContext: (session, signal) => {
      const workspace = new Workspace(runtimes.for(session), signal);
      return { workspace, ioUsage: () => workspace.ioUsage() };
    },
  };
  for (const { tool } of registry.list()) await tool.init?.({ services, logger });
  return services;
}
