// Creates the state the stateful policies keep (idempotency outcomes, rate-limit counters, parked calls)
// and declares its lifecycle. Which step uses which state, and in what order, is in steps.ts.
import type { Config } from '../config.js';
import type { Db } from '../store/db.js';
import type { Lifecycle } from './lifecycle.js';
import { ApprovalStore } from '../policies/approvals/store.js';
import { IdempotencyStore } from '../policies/idempotency/store.js';
import { idempotencyLifecycle } from '../policies/idempotency/lifecycle.js';
import { createRateLimitStore, rateLimitLifecycle } from '../policies/rate-limit/lifecycle.js';
import type { RateLimitStore } from '../policies/rate-limit/store.js';

export interface PolicyStates {
  /** Counters for rate limits (memory, or Redis when REDIS_URL is set). */
  readonly rateLimitStore: RateLimitStore;
  /** Parked calls; swept by the approval service, which decides them (policies/approvals/service.ts). */
  readonly approvals: ApprovalStore;
  readonly idempotency: IdempotencyStore;
  /** What these states sweep and close, in the order services.ts places them (see its parts list). */
  readonly lifecycles: {
    readonly rateLimit: Lifecycle;
    readonly idempotency: Lifecycle;
  };
}

export async function createPolicies(config: Config, db: Db): Promise<PolicyStates> {
  const rateLimitStore = await createRateLimitStore(config.redisUrl);
  const idempotency = new IdempotencyStore(db);
  return {
    rateLimitStore,
    approvals: new ApprovalStore(db),
    idempotency,
    lifecycles: {
      rateLimit: rateLimitLifecycle(rateLimitStore),
      idempotency: idempotencyLifecycle(idempotency),
    },
  };
}
