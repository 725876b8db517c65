// The sandbox choice: from TOOLGATE_SANDBOX (auto probes bwrap by running it) pick the backend that
// session runtimes are started with, and say whether commands may run at all. Commands themselves are
// started by the session runtime (src/runtime), inside its namespace, never by the service.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { ContainerBackendConfig, SandboxMode } from '../../config.js';
import { toolgateError } from '../../lib/errors.js';
import { runtimeBundle } from '../bundle.js';
import { bwrapRuntimeBackend } from '../backends/bwrap.js';
import { loadDockerBackend } from '../backends/docker/load.js';
import { loadKubernetesBackend } from '../backends/kubernetes/load.js';
import type { RuntimeBackend } from '../backends/types.js';
import { unisolatedRuntimeBackend } from '../backends/unisolated.js';
import { PidsCgroups } from './cgroup.js';
import { bwrapArgs, SANDBOX_WORKSPACE, type HostLayout } from './bwrap-args.js';
import { findBwrap, findPrlimit, findShell, prepareHostLayout } from './host.js';
import { spawnGroup } from './spawn.js';
import type { SandboxStatus } from './types.js';

const PROBE_TIMEOUT_MS = 5_000;
/** The environment of host-side helpers (bwrap): fixed, never the caller's. */
const HOST_ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };
/**
 * Every command's environment before the caller's additions. PYTHONDONTWRITEBYTECODE: a .pyc is keyed on
 * the source's mtime in whole seconds and its size, so an edit within the same second could leave Python
 * running the old code; without the cache, the next command always sees what the tools wrote.
 */
export const BASE_ENV = {
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  HOME: '/tmp',
  LANG: 'C.UTF-8',
  TERM: 'dumb',
  PYTHONDONTWRITEBYTECODE: '1',
};

export interface RunnerOptions {
  /** Where bwrap lives (tests point this at a missing file to see the unavailable path). */
  bwrapPath?: string;
}

interface Backend {
  status: SandboxStatus;
  /** How session runtimes start: isolated with bwrap, or unisolated (none, or auto without bwrap). */
  runtime: RuntimeBackend;
  cgroups?: PidsCgroups;
}

export class CommandRunner {
  constructor(private readonly backend: Backend) {}

  get status(): SandboxStatus {
    return this.backend.status;
  }

  get runtimeBackend(): RuntimeBackend {
    return this.backend.runtime;
  }

  get cgroups(): PidsCgroups | undefined {
    return this.backend.cgroups;
  }

  /** The environment a command starts with; refuses when execution is disabled. */
  commandEnv(callerEnv: Readonly<Record<string, string>>): Record<string, string> {
    if (!this.backend.status.available) {
      throw toolgateError('SANDBOX_UNAVAILABLE', `Command execution is disabled: ${this.status.detail}`, {
        suggestion: 'Ask the operator to install bubblewrap, or to set TOOLGATE_SANDBOX=none knowingly.',
      });
    }
    return { ...BASE_ENV, ...callerEnv };
  }
}

function bwrapBackend(bwrap: string, layout: HostLayout, detail: string, cgroups?: PidsCgroups): Backend {
  const fullDetail = `${detail}; every workspace operation and command runs in the session's runtime inside the sandbox, in a network namespace of its own (loopback only; out only through the egress proxy); ${processLimitNote(cgroups)}`;
  return {
    status: { backend: 'bwrap', isolated: true, available: true, detail: fullDetail },
    runtime: bwrapRuntimeBackend(bwrap, layout, runtimeBundle(), fullDetail),
    cgroups,
  };
}

const processLimitNote = (cgroups?: PidsCgroups) =>
  cgroups
    ? 'process count limited by a pids cgroup per command'
    : 'process count limited by RLIMIT_NPROC only (no writable pids cgroup; not enforced when the service runs as root)';

function noneBackend(prlimit: string | undefined, cgroups?: PidsCgroups): Backend {
  const detail =
    'TOOLGATE_SANDBOX=none: the session runtime and its commands run UNISOLATED as the service user in the ' +
    'workspace directory (they can read the host and reach whatever the host can: the egress policy binds only ' +
    'web_fetch and programs that honour the proxy variables)' +
    `${prlimit ? '' : '; prlimit is missing, so no resource limits'}; ${processLimitNote(cgroups)}`;
  return {
    status: { backend: 'none', isolated: false, available: true, detail },
    runtime: unisolatedRuntimeBackend(findShell(), prlimit, runtimeBundle(), detail),
    cgroups,
  };
}

/** No sandbox: commands are refused; file tools still run, in an unisolated runtime (reported as such). */
const disabled = (detail: string, prlimit: string | undefined): Backend => ({
  status: { backend: null, isolated: false, available: false, detail },
  runtime: unisolatedRuntimeBackend(
    findShell(),
    prlimit,
    runtimeBundle(),
    `${detail}; file tools run in an unisolated runtime`,
  ),
});

/** Runs `echo` in a real sandbox over a scratch workspace: the only reliable test that bwrap works here. */
async function probeBwrap(bwrap: string, layout: HostLayout, sandboxDir: string): Promise<string | null> {
  const probeWorkspace = path.join(sandboxDir, 'probe-workspace');
  mkdirSync(probeWorkspace, { recursive: true, mode: 0o700 });
  const limits = {
    cpuSeconds: 5,
    memoryBytes: 512 * 1024 * 1024,
    maxProcesses: 16,
    fileSizeBytes: 1 << 20,
    openFiles: 64,
  };
  try {
    const child = spawnGroup(
      bwrap,
      bwrapArgs(layout, probeWorkspace, '.', `cd ${SANDBOX_WORKSPACE} && echo ok`, limits, BASE_ENV),
      { cwd: '/', env: HOST_ENV },
    );
    child.stdin.end();
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const timer = setTimeout(() => child.kill(), PROBE_TIMEOUT_MS);
    const exit = await child.exited.finally(() => clearTimeout(timer));
    if (exit.exitCode === 0 && out.trim() === 'ok') return null;
    return `bwrap test run failed (exit ${exit.exitCode ?? exit.signal}): ${out.trim().slice(0, 300)}`;
  } catch (err) {
    return `bwrap could not be started: ${(err as Error).message.slice(0, 300)}`;
  }
}

/**
 * The container backends, imported here and only here, late: their clients (dockerode, the Kubernetes
 * client) are loaded only when the operator chose them, and a production install may lack them (each
 * backend's load.ts then names the package and the command that adds it). A backend that cannot start stops the service
 * with the reason: unlike `auto`, a container backend was asked for by name.
 */
async function containerBackend(containers: ContainerBackendConfig, dataDir: string): Promise<Backend> {
  const bundle = runtimeBundle();
  const runtime =
    containers.type === 'docker'
      ? await (await loadDockerBackend()).createDockerBackend(containers, { dataDir, bundle })
      : await (await loadKubernetesBackend()).createKubernetesBackend(containers, { dataDir });
  return {
    status: { backend: runtime.name, isolated: true, available: true, detail: runtime.detail },
    runtime,
  };
}

export async function createRunner(
  mode: SandboxMode,
  dataDir: string,
  options: RunnerOptions = {},
  containers?: ContainerBackendConfig,
): Promise<CommandRunner> {
  if (containers) return new CommandRunner(await containerBackend(containers, dataDir));
  const prlimit = findPrlimit();
  const cgroups = PidsCgroups.detect();
  if (mode === 'none') return new CommandRunner(noneBackend(prlimit, cgroups));
  const fix = 'set TOOLGATE_SANDBOX=none to run commands without isolation';
  const bwrap = options.bwrapPath ?? findBwrap();
  let problem: string | null;
  if (!bwrap) problem = 'bubblewrap (bwrap) is not installed';
  else if (!prlimit) problem = 'prlimit (util-linux) is not installed, so resource limits cannot be applied';
  else {
    const sandboxDir = path.join(dataDir, 'sandbox');
    const layout = prepareHostLayout(sandboxDir, prlimit);
    problem = await probeBwrap(bwrap, layout, sandboxDir);
    if (problem === null) {
      return new CommandRunner(
        bwrapBackend(
          bwrap,
          layout,
          `bubblewrap (${mode === 'auto' ? 'probed at start' : 'required by config'})`,
          cgroups,
        ),
      );
    }
  }
  const prefix = mode === 'bwrap' ? 'TOOLGATE_SANDBOX=bwrap but ' : '';
  return new CommandRunner(disabled(`${prefix}${problem}; execution is disabled (${fix})`, prlimit));
}
