// A parked call's end once it is decided without running: denied (by the operator, with their reason) or
// expired (nobody decided in time). It gets its final audit row, and its end on the session's activity
// stream (a console showing the call as waiting shows it refused). An approved call needs neither here:
// it runs through the pipeline, whose own row and events are its final ones. With them, the call's
// `pending` row is history, not a call still waiting (stats count as parked only what waits now).
import type { AuditStore } from '../../store/audit.js';
import type { ToolgateError } from '../../lib/errors.js';
import type { ActivityPublisher } from '../../contract/policy.js';
import type { ApprovalRecord } from './store.js';

/** Who decided: the operator (the admin key), or the expiry sweep. */
export type DecidedBy = 'admin' | 'expiry';

/** Where a decision is told. */
export interface DecisionSinks {
  audit: AuditStore;
  events: ActivityPublisher;
}

export function recordDecision(
  { audit, events }: DecisionSinks,
  record: ApprovalRecord,
  outcome: { error: ToolgateError; decidedBy: DecidedBy; reason: string | null; at: number },
): void {
  const { callId, sessionId, tool } = record;
  audit.record({
    callId,
    ts: outcome.at,
    sessionId,
    tool,
    category: record.category,
    // As the pipeline would have recorded a refusal (statusOf: a permission_error is refused).
    status: 'refused',
    errorCode: outcome.error.code,
    httpStatus: outcome.error.statusCode,
    // The call never ran: the wait for a decision is not a duration of the tool.
    durationMs: 0,
    bytesIn: 0,
    bytesOut: 0,
    caller: record.caller,
    entryPoint: record.entryPoint,
    inputSummary: record.inputSummary,
    decidedBy: outcome.decidedBy,
    reason: outcome.reason,
  });
  if (!events.watching(sessionId)) return;
  events.publish(sessionId, 'error', { callId, tool, error: outcome.error.toBody() });
  events.publish(sessionId, 'tool_call_end', { callId, tool, success: false, durationMs: 0 });
}
