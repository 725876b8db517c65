// The parked calls' life: the periodic sweep expires those no operator decided on in time.
import type { Lifecycle } from '../../engine/lifecycle.js';
import type { ApprovalService } from './service.js';

export const approvalsLifecycle = (service: ApprovalService): Lifecycle => ({
  name: 'approvals',
  sweep: (now) => service.expireDue(now),
});
