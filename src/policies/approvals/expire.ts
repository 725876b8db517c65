// Expires parked calls past their deadline: each gets the APPROVAL_EXPIRED failure as its result, its
// final audit row (decided by the expiry) and the end of the call on the session's activity stream. Run
// by the periodic sweep and by a waiter that finds its call overdue.
import { failureEnvelope } from '../../lib/envelope.js';
import { toolgateError } from '../../lib/errors.js';
import type { ToolLogger } from '../../lib/logger.js';
import { recordDecision, type DecisionSinks } from './record-decision.js';
import type { ApprovalStore } from './store.js';

export async function expireApprovals(
  store: ApprovalStore,
  sinks: DecisionSinks,
  logger: ToolLogger,
  now = Date.now(),
): Promise<number> {
  const error = toolgateError('APPROVAL_EXPIRED', 'No operator decided on this call before it expired');
  const expired = await store.expireDue({ status: error.statusCode, body: failureEnvelope(error) }, now);
  for (const record of expired) {
    recordDecision(sinks, record, { error, decidedBy: 'expiry', reason: null, at: now });
  }
  if (expired.length) logger.info({ count: expired.length }, 'approvals expired');
  return expired.length;
}
