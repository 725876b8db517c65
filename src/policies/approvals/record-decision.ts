// A parked call's final audit row once it is decided without running: denied (by the operator, with
// their reason) or expired (nobody decided in time). An approved call needs none here: it runs through
// the pipeline, whose own row is its final one. With it, the call's `pending` row is history, not a
// call still waiting (stats count as parked only what waits now).
import type { AuditStore } from '../../store/audit.js';
import type { ToolgateError } from '../../lib/errors.js';
import type { ApprovalRecord } from './store.js';

/** Who decided: the operator (the admin key), or the expiry sweep. */
export type DecidedBy = 'admin' | 'expiry';

export function recordDecision(
  audit: AuditStore,
  record: ApprovalRecord,
  outcome: { error: ToolgateError; decidedBy: DecidedBy; reason: string | null; at: number },
): void {
  audit.record({
    callId: record.callId,
    ts: outcome.at,
    sessionId: record.sessionId,
    tool: record.tool,
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
}
