// The jobs subsystem's wiring: commands and background jobs, and the sessions' persistent shells, with
// their lifecycles. Runtimes that outlived the service bring their jobs and shells back through here.
// src/services.ts composes it.
import type { Config } from '../config.js';
import type { Lifecycle } from '../lib/lifecycle.js';
import { ownPath } from '../ops/startup.js';
import type { RuntimeManager } from '../runtime/manager.js';
import type { CommandRunner } from '../runtime/runner/runner.js';
import { createJobManager, jobLimitsFor, type JobManager } from './job-manager.js';
import { ShellManager } from './shell-manager.js';

export interface JobParts {
  readonly jobs: JobManager;
  readonly shells: ShellManager;
  readonly lifecycles: { readonly jobs: Lifecycle; readonly shells: Lifecycle };
}

/** Jobs keep their logs in the data dir's `jobs` (a replica's own: it empties it at its start). */
export async function wireJobs(
  config: Pick<Config, 'limits' | 'dataDir' | 'replica'>,
  parts: { runner: CommandRunner; runtimes: RuntimeManager },
): Promise<JobParts> {
  const { runtimes } = parts;
  const { limits } = config;
  const jobsDir = ownPath(config, 'jobs');
  const jobs = await createJobManager(parts.runner, jobsDir, jobLimitsFor(limits.outputMaxBytes));
  const shells = new ShellManager({
    perSession: limits.shellsPerSession,
    idleMs: limits.shellIdleSeconds * 1000,
  });
  // Runtimes that outlived the previous life of the service (containers, pods) bring their jobs back,
  // and their persistent shells.
  runtimes.onReattach = async (runtime) => {
    await jobs.adopt(runtime);
    await shells.adopt(runtime);
  };
  jobs.adopted = (sessionId) => runtimes.reattached(sessionId);
  return {
    jobs,
    shells,
    lifecycles: {
      jobs: { name: 'jobs', forgetSession: (id) => jobs.killSession(id), close: () => jobs.close() },
      // The shells themselves die with the runtime; this lets go of what the service knew of them.
      shells: {
        name: 'shells',
        forgetSession: (id) => shells.forgetSession(id),
        close: () => shells.close(),
      },
    },
  };
}
