// The runtime subsystem's wiring: the command runner (the sandbox backend chosen by config: createRunner
// picks it, and imports a container backend only when it is the one) and the manager of the sessions'
// runtimes, with their lifecycle. src/services.ts composes it; what it needs from other folders (workspaces,
// the ingress, tracing, language servers' packages) comes in as arguments.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { RUNTIME_PATH } from '../code/lsp/servers.js';
import type { Config } from '../config.js';
import type { Lifecycle } from '../lib/lifecycle.js';
import type { ToolLogger } from '../lib/logger.js';
import type { Tracing } from '../ops/trace.js';
import type { Ingress } from '../preview/ingress.js';
import type { WorkspaceManager } from '../sandbox/workspaces.js';
import type { SessionStore } from '../store/sessions.js';
import type { RuntimeBackend } from './backends/types.js';
import { RuntimeManager } from './manager.js';
import { SessionCpuGroups } from './runner/cpu-cgroup.js';
import { createRunner, type CommandRunner, type RunnerOptions } from './runner/runner.js';

/** The command runner for the configured sandbox; what keeps sessions from running is logged once. */
export async function wireRunner(
  config: Pick<Config, 'sandbox' | 'dataDir' | 'containers'>,
  logger: ToolLogger,
  overrides: RunnerOptions | undefined,
): Promise<CommandRunner> {
  const runner = await createRunner(config.sandbox, config.dataDir, overrides, config.containers);
  if (!runner.status.available) warnExecutionDisabled(logger, runner.status.detail);
  await warnMissingImages(logger, runner.runtimeBackend);
  return runner;
}

/** The sessions' runtimes on the runner's backend; they bind the ingress and read-only host dirs. */
export function wireRuntimes(
  config: Pick<Config, 'toolsDir' | 'mcpServers' | 'runtime' | 'limits'>,
  logger: ToolLogger,
  parts: {
    runner: CommandRunner;
    workspaces: WorkspaceManager;
    ingress: Ingress;
    tracing: Tracing | undefined;
    /** Host dirs of the language servers' packages (none when they are off). */
    lspPaths: readonly string[];
  },
): RuntimeManager {
  const { runner, workspaces } = parts;
  const backend = runner.runtimeBackend;
  // Container runtimes are in cgroups of their engine's (docker's CpuShares: container-spec.ts).
  const cpuGroups =
    backend.name === 'bwrap' || backend.name === 'none'
      ? SessionCpuGroups.detect(config.runtime.cpuWeight)
      : undefined;
  return new RuntimeManager(backend, {
    workspacesDir: workspaces.baseDir,
    ingressDir: parts.ingress.root,
    overlayFor: (id) => workspaces.overlays?.mountFor(id),
    // The whole tools dir, so folders added while the service runs are there too (hot reload).
    readOnlyPaths: [
      ...(config.toolsDir ? [config.toolsDir] : []),
      ...Object.values(config.mcpServers).flatMap((server) => server.readOnlyPaths),
      ...parts.lspPaths,
    ],
    idleMs: config.runtime.idleSeconds * 1000,
    hangMs: config.runtime.hangSeconds * 1000,
    quotaBytes: config.limits.workspaceMaxBytes,
    cgroups: runner.cgroups,
    cpuGroups,
    logger,
    tracing: parts.tracing,
  });
}

/** The runtimes' lifecycle: the sweep asks the session store (opened after them) which sessions live. */
export function runtimesLifecycle(runtimes: RuntimeManager, sessions: SessionStore): Lifecycle {
  return {
    name: 'runtimes',
    forgetSession: (id) => runtimes.remove(id),
    // Containers and pods of sessions that are gone (deleted, expired, or unknown to this data dir).
    sweep: () => runtimes.sweep(async (id) => (await sessions.get(id)) !== undefined),
    close: () => runtimes.close(),
  };
}

/** Whether a binary is in the system dirs commands see on their PATH inside a runtime (the host's). */
export function onRuntimePath(binary: string): boolean {
  return RUNTIME_PATH.some((dir) => existsSync(path.join(dir, binary)));
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
