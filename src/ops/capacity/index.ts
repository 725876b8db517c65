// The replica's capacity, made from its config: limits left at 0 are derived from this machine
// (defaults.ts), the host is read from /proc (host.ts), and runtime starts are admitted through it.
import type { Config, SandboxMode } from '../../config.js';
import type { RuntimeManager } from '../../runtime/manager.js';
import { diskState } from '../disk.js';
import { Capacity } from './capacity.js';
import { derivedCapacity } from './defaults.js';
import { hostResources } from './host.js';

export { Capacity } from './capacity.js';
export type { CapacityLimitName, CapacityReport } from './capacity.js';
export { registerCapacityMetrics } from './metrics.js';

export function createCapacity(
  config: Pick<Config, 'capacity' | 'disk' | 'dataDir' | 'apiKeys'>,
  backend: SandboxMode,
  totalMemoryBytes: number,
  runtimes: RuntimeManager,
  sessions: { live(): Promise<number>; ofKey(apiKey: string): Promise<number> },
): Capacity {
  const derived = derivedCapacity(totalMemoryBytes, backend);
  const { capacity } = config;
  const made = new Capacity(
    {
      maxSessions: capacity.maxSessions || derived.maxSessions,
      maxRuntimes: capacity.maxRuntimes || derived.maxRuntimes,
      minAvailableMemoryBytes: capacity.minAvailableMemoryBytes || derived.minAvailableMemoryBytes,
      minFreePids: capacity.minFreePids,
      minFreeDiskBytes: config.disk.minFreeBytes,
      retryAfterSeconds: capacity.retryAfterSeconds,
      keyQuotas: Object.fromEntries(
        Object.entries(config.apiKeys).map(([name, key]) => [name, key.maxSessions]),
      ),
    },
    runtimes,
    {
      sessions: () => sessions.live(),
      sessionsOfKey: (apiKey) => sessions.ofKey(apiKey),
      host: hostResources,
      disk: () => diskState(config.dataDir),
    },
  );
  runtimes.admission = (starting) => made.admitRuntime(starting);
  return made;
}
