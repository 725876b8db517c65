// The engine's wiring: the sessions' activity streams (event hub) and the call pipeline, with the signal
// that stops running calls at shutdown. src/services.ts composes them.
import { setMaxListeners } from 'node:events';
import type { ToolServices } from '../contract/context.js';
import type { PolicyStates } from '../contract/policy.js';
import type { ToolRegistry } from '../contract/registry.js';
import type { Lifecycle } from '../lib/lifecycle.js';
import type { ToolLogger } from '../lib/logger.js';
import type { Metrics } from '../ops/metrics.js';
import type { Tracing } from '../ops/trace.js';
import type { AuditStore } from '../store/audit.js';
import type { SessionStore } from '../store/sessions.js';
import { EventHub } from './events.js';
import { Pipeline } from './pipeline.js';

export function wireEvents(): { events: EventHub; lifecycle: Lifecycle } {
  const events = new EventHub();
  return { events, lifecycle: { name: 'events', forgetSession: (id) => events.forget(id) } };
}

/** The one pipeline every call goes through; each call's end counted and its session's last use kept. */
export function wirePipeline(
  logger: ToolLogger,
  parts: {
    policies: PolicyStates;
    registry: ToolRegistry;
    services: ToolServices;
    audit: AuditStore;
    events: EventHub;
    tracing: Tracing | undefined;
    metrics: Metrics;
    sessions: SessionStore;
  },
): { pipeline: Pipeline; shutdown: AbortController } {
  const { metrics, sessions } = parts;
  const shutdown = new AbortController();
  // Every running call listens on it and batches run many at once: many listeners is normal, not a leak.
  setMaxListeners(0, shutdown.signal);
  const pipeline = new Pipeline({
    policies: parts.policies,
    registry: parts.registry,
    services: parts.services,
    audit: parts.audit,
    events: parts.events,
    logger,
    shutdownSignal: shutdown.signal,
    tracing: parts.tracing,
    onCallEnd(info) {
      metrics.callEnded(info);
      // The operator looking at a session does not keep it from expiring idle.
      if (info.operatorRead) return;
      // Last-use tracking must never fail a call (e.g. a busy database during shutdown).
      sessions.touch(info.sessionId).catch((err: unknown) => {
        logger.warn({ err, sessionId: info.sessionId }, 'could not record session use');
      });
    },
  });
  return { pipeline, shutdown };
}
