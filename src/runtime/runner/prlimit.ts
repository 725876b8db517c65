// The prlimit arguments that apply a command's resource limits. Its own file, free of schema code: the
// session runtime's bundle includes it.
import type { ResourceLimits } from './types.js';

/**
 * `prlimit` sets soft and hard limits together, so the command cannot raise them again.
 * RLIMIT_NPROC is only meaningful inside a user namespace: on the host it counts every process of the
 * service's user (and root ignores it), so the unisolated backend leaves it out.
 */
export function prlimitArgs(limits: ResourceLimits, withProcessLimit: boolean): string[] {
  return [
    `--cpu=${limits.cpuSeconds}`,
    `--as=${limits.memoryBytes}`,
    `--fsize=${limits.fileSizeBytes}`,
    `--nofile=${limits.openFiles}`,
    ...(withProcessLimit ? [`--nproc=${limits.maxProcesses}`] : []),
    '--',
  ];
}
