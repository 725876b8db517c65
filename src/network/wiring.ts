// The network subsystem's wiring: the egress proxy, every session's only way out, with its lifecycle.
// Each connection of a session, when it ends or is refused, becomes an audit row, an event and counts;
// the event goes out through `announce` (the engine's event hub is a higher layer). src/services.ts
// composes it.
import type { Config } from '../config.js';
import type { Lifecycle } from '../lib/lifecycle.js';
import type { Metrics } from '../ops/metrics.js';
import { ownPath } from '../ops/startup.js';
import type { RuntimeManager } from '../runtime/manager.js';
import type { AuditStore } from '../store/audit.js';
import { connectionAuditEntry } from './audit.js';
import type { ConnectionRecord } from './connections.js';
import { Egress } from './egress.js';

/** Publishes a connection on its session's activity stream, under its audit row's call id. */
export type ConnectionAnnouncer = (record: ConnectionRecord, callId: string) => void;

export function wireEgress(
  config: Pick<Config, 'network' | 'limits' | 'dataDir' | 'replica'>,
  parts: {
    runtimes: RuntimeManager;
    audit: AuditStore;
    metrics: Metrics;
    announce: ConnectionAnnouncer;
  },
): { egress: Egress; lifecycle: Lifecycle } {
  const { network } = config;
  const { audit, metrics } = parts;
  const egress = new Egress({
    // The proxy's per-session sockets: a replica's own (it empties the directory at its start).
    socketsDir: ownPath(config, 'egress'),
    openRanges: network.openRanges,
    ...(network.hostsFile !== undefined ? { hostsFile: network.hostsFile } : {}),
    connectTimeoutMs: network.connectTimeoutMs,
    spliceAfterBytes: network.spliceAfterBytes,
    quotaBytes: config.limits.egressBytes,
    sink: (record) => {
      const entry = connectionAuditEntry(record);
      audit.record(entry);
      // The audit row's id, so a timeline shows the live event and the row as one entry.
      parts.announce(record, entry.callId);
      metrics.egressConnection(record);
    },
  });
  parts.runtimes.egress = (sessionId, policy, openRanges, stable) =>
    egress.openSessionSocket(sessionId, policy, openRanges, { stable });
  return {
    egress,
    // After the runtimes: their sockets are closed with them; what is left (web_fetch) goes here.
    lifecycle: {
      name: 'egress',
      forgetSession: (id) => egress.forgetSession(id),
      close: () => egress.close(),
    },
  };
}
