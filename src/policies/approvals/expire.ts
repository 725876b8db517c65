// Expires parked calls past their deadline: each gets the APPROVAL_EXPIRED failure as its result. Run by
// the periodic sweep and by a waiter that finds its call overdue.
import { failureEnvelope } from '../../lib/envelope.js';
import { toolgateError } from '../../lib/errors.js';
import type { ToolLogger } from '../../lib/logger.js';
import type { ApprovalStore } from './store.js';

export function expireApprovals(store: ApprovalStore, logger: ToolLogger, now = Date.now()): number {
  const error = toolgateError('APPROVAL_EXPIRED', 'No operator decided on this call before it expired');
  const count = store.expireDue({ status: error.statusCode, body: failureEnvelope(error) }, now);
  if (count) logger.info({ count }, 'approvals expired');
  return count;
}
