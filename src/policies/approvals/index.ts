// The approvals policy: calls that need an operator's approval are parked in SQLite (./step.ts), decided
// by the approval service (./service.ts) over ./routes.ts; the periodic sweep expires those no operator
// decided on in time.
import { definePolicy } from '../../contract/policy.js';
import { expireApprovals } from './expire.js';
import { approval } from './step.js';
import { ApprovalStore } from './store.js';

export const approvalsPolicy = definePolicy({
  name: 'approvals',
  step: 'approval',
  stage: 'policy',
  create: ({ db }) => new ApprovalStore(db),
  middleware: (store, config) => approval(store, config.policy.approvalTtlSeconds * 1000),
  lifecycle: (store, { audit, events, logger }) => ({
    sweep: (now) => expireApprovals(store, { audit, events }, logger, now),
  }),
});
