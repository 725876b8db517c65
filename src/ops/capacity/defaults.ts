// The limits a replica takes when the config leaves them at 0: derived from this machine's memory and what
// a session costs on the backend, so a laptop is protected without anyone setting a number.
//
// Measured (docs/operations.md "Capacity"): an idle live session costs 12.9 MB of host memory on the docker
// backend (8.9 MB in the container's cgroup + 2.8 MB for its containerd shim) and 9.4 MB on bwrap, and read
// latency stays flat up to 300 such sessions on both.
import type { SandboxMode } from '../../config.js';

const MIB = 1024 * 1024;

/** Host memory of one idle running runtime, by backend (kubernetes: the node's, like docker's). */
export const IDLE_RUNTIME_BYTES: Readonly<Record<SandboxMode, number>> = {
  docker: 12.9e6,
  kubernetes: 12.9e6,
  bwrap: 9.4e6,
  auto: 9.4e6,
  none: 9.4e6,
};

/**
 * What a runtime that works is planned at: its idle cost plus 64 MiB for the commands it runs (a test run,
 * an install). Sessions idle most of the time, and the memory check catches the rest.
 */
const WORKING_RUNTIME_EXTRA_BYTES = 64 * MIB;

export interface DerivedCapacity {
  maxSessions: number;
  maxRuntimes: number;
  minAvailableMemoryBytes: number;
}

/**
 * Half the machine's memory for runtimes: as many working runtimes as fit in it, and as many sessions as
 * could all have an idle runtime in it. The floor of available memory is 5% of it (at least 256 MiB).
 */
export function derivedCapacity(totalMemoryBytes: number, backend: SandboxMode): DerivedCapacity {
  const budget = totalMemoryBytes / 2;
  const idle = IDLE_RUNTIME_BYTES[backend];
  return {
    maxSessions: Math.max(8, Math.floor(budget / idle)),
    maxRuntimes: Math.max(2, Math.floor(budget / (idle + WORKING_RUNTIME_EXTRA_BYTES))),
    minAvailableMemoryBytes: Math.max(256 * MIB, Math.floor(totalMemoryBytes * 0.05)),
  };
}
