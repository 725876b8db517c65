// The preview subsystem's wiring, in the two steps the start order asks for: the ingress socket listens
// before any runtime starts (every runtime binds its directory), and the preview service comes once the
// database, the audit log and the metrics exist. src/services.ts composes both.
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Config } from '../config.js';
import type { Lifecycle } from '../lib/lifecycle.js';
import type { Metrics } from '../ops/metrics.js';
import type { RuntimeManager } from '../runtime/manager.js';
import type { AdminKey } from '../store/admin-key.js';
import type { AuditStore } from '../store/audit.js';
import { ExposedPortStore } from '../store/exposed-ports.js';
import type { SqlDatabase } from '../store/sql.js';
import { previewAuditEntry } from './audit.js';
import { Ingress } from './ingress.js';
import { linkKey } from './links.js';
import { PreviewService } from './service.js';

/**
 * The socket every session runtime dials to carry a connection to one of its ports out, listening.
 * Replicas share the data dir's ingress directory, each with a socket in a subdirectory of its own
 * (named from its id, whatever characters that has).
 */
export async function openIngress(config: Pick<Config, 'dataDir' | 'replica'>): Promise<Ingress> {
  const ingress = new Ingress(
    path.join(config.dataDir, 'ingress'),
    config.replica
      ? `r-${createHash('sha256').update(config.replica.id).digest('hex').slice(0, 16)}`
      : 'main',
  );
  // Listening before any runtime starts: every runtime binds its directory (the MCP servers' discovery
  // starts runtimes already), and bwrap refuses a bind whose source does not exist.
  await ingress.start();
  return ingress;
}

/** Exposed ports, signed links and the connections through them; each request an audit row and counts. */
export function wirePreview(
  config: Config,
  parts: {
    db: SqlDatabase;
    runtimes: RuntimeManager;
    ingress: Ingress;
    adminKey: AdminKey;
    audit: AuditStore;
    metrics: Metrics;
  },
): { preview: PreviewService; lifecycle: Lifecycle } {
  const { audit, metrics } = parts;
  const preview = new PreviewService(
    config,
    new ExposedPortStore(parts.db),
    parts.runtimes,
    parts.ingress,
    linkKey(parts.adminKey.key),
    (record) => {
      audit.record(previewAuditEntry(record));
      metrics.previewRequest(record);
    },
  );
  return {
    preview,
    lifecycle: {
      name: 'preview',
      forgetSession: (id) => preview.forgetSession(id),
      close: () => preview.close(),
    },
  };
}
