// The CPU pool's wiring: worker threads with deadlines for a call's CPU-heavy work (edit matching, HTML
// conversion), preloaded with those jobs, with its lifecycle. src/services.ts composes it.
import { availableParallelism } from 'node:os';
import type { Config } from '../config.js';
import { PARSE_JOBS } from '../code/code-index.js';
import { EDIT_JOBS } from '../edit/edit-work.js';
import type { Lifecycle } from '../lib/lifecycle.js';
import { HTML_JOBS } from '../network/html-job.js';
import type { Metrics } from '../ops/metrics.js';
import { CpuPool } from './cpu-pool.js';

/** Each job's end is counted in `metrics` (which reads the pool's queue too: src/ops/wiring.ts). */
export function wireCpu(
  limits: Config['limits'],
  metrics: Metrics,
  /** The sessions' cpu group's thread file (cgroup v1): each worker joins it once loaded. */
  threadsFile?: string,
): { cpu: CpuPool; lifecycle: Lifecycle } {
  const cpu = new CpuPool({
    threadsFile,
    workers: limits.cpuWorkers || Math.max(4, Math.min(8, availableParallelism())),
    jobMs: limits.cpuJobMs,
    memoryMb: limits.cpuJobMemoryMb,
    preload: [EDIT_JOBS, HTML_JOBS, PARSE_JOBS],
    onJobEnd: (label, outcome) => metrics.cpuJobEnded(label, outcome),
  });
  // No call is left to give work to the workers; a job still running is ended with its worker.
  return { cpu, lifecycle: { name: 'cpu-workers', close: () => cpu.close() } };
}
