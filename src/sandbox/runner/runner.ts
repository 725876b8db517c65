// CommandRunner: the one way toolgate starts a process. Chooses the backend from TOOLGATE_SANDBOX
// (auto probes bwrap by running it), builds the clean environment and starts commands under the limits.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { SandboxMode } from '../../config.js';
import { toolgateError } from '../../core/errors.js';
import { PidsCgroups } from './cgroup.js';
import { bwrapArgs, SANDBOX_WORKSPACE, type HostLayout } from './bwrap-args.js';
import { findBwrap, findPrlimit, findShell, prepareHostLayout } from './host.js';
import { prlimitArgs } from './limits.js';
import { spawnGroup } from './spawn.js';
import type { SandboxedProcess, SandboxStatus, SpawnRequest } from './types.js';

const PROBE_TIMEOUT_MS = 5_000;
/** The environment of host-side helpers (bwrap): fixed, never the caller's. */
const HOST_ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };
const BASE_ENV = {
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  HOME: '/tmp',
  LANG: 'C.UTF-8',
  TERM: 'dumb',
};

export interface RunnerOptions {
  /** Where bwrap lives (tests point this at a missing file to see the unavailable path). */
  bwrapPath?: string;
}

interface Backend {
  status: SandboxStatus;
  start(request: SpawnRequest, env: Record<string, string>): SandboxedProcess;
}

export class CommandRunner {
  constructor(private readonly backend: Backend) {}

  get status(): SandboxStatus {
    return this.backend.status;
  }

  /** Starts a command; the caller owns it and must kill it or await `exited`. */
  spawn(request: SpawnRequest): SandboxedProcess {
    if (!this.backend.status.available) {
      throw toolgateError('SANDBOX_UNAVAILABLE', `Command execution is disabled: ${this.status.detail}`, {
        suggestion: 'Ask the operator to install bubblewrap, or to set TOOLGATE_SANDBOX=none knowingly.',
      });
    }
    return this.backend.start(request, { ...BASE_ENV, ...request.env });
  }
}

function bwrapBackend(bwrap: string, layout: HostLayout, detail: string, cgroups?: PidsCgroups): Backend {
  return {
    status: {
      backend: 'bwrap',
      isolated: true,
      available: true,
      detail: `${detail}; ${processLimitNote(cgroups)}`,
    },
    start: (req, env) =>
      spawnGroup(bwrap, bwrapArgs(layout, req.workspaceRoot, req.cwd, req.command, req.limits, env), {
        cwd: '/',
        env: HOST_ENV,
        cgroup: cgroups?.create(req.limits.maxProcesses),
      }),
  };
}

const processLimitNote = (cgroups?: PidsCgroups) =>
  cgroups
    ? 'process count limited by a pids cgroup per command'
    : 'process count limited by RLIMIT_NPROC only (no writable pids cgroup; not enforced when the service runs as root)';

function noneBackend(prlimit: string | undefined, cgroups?: PidsCgroups): Backend {
  const shell = findShell();
  return {
    status: {
      backend: 'none',
      isolated: false,
      available: true,
      detail:
        'TOOLGATE_SANDBOX=none: commands run UNISOLATED as the service user in the workspace directory ' +
        `(they can read the host and use the network)${prlimit ? '' : '; prlimit is missing, so no resource limits'}; ` +
        processLimitNote(cgroups),
    },
    start: (req, env) => {
      const cwd = path.join(req.workspaceRoot, req.cwd);
      const command = [shell, '-c', req.command];
      const cgroup = cgroups?.create(req.limits.maxProcesses);
      return prlimit
        ? spawnGroup(prlimit, [...prlimitArgs(req.limits, false), ...command], { cwd, env, cgroup })
        : spawnGroup(command[0], command.slice(1), { cwd, env, cgroup });
    },
  };
}

const disabled = (detail: string): Backend => ({
  status: { backend: null, isolated: false, available: false, detail },
  start: () => {
    throw new Error('unreachable: the runner refuses before starting');
  },
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

export async function createRunner(
  mode: SandboxMode,
  dataDir: string,
  options: RunnerOptions = {},
): Promise<CommandRunner> {
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
  return new CommandRunner(disabled(`${prefix}${problem}; execution is disabled (${fix})`));
}
