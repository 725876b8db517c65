// Assembles the policy middleware of the pipeline — idempotency, rate limits, approvals, in that order —
// with the stores they keep state in. A replay costs no rate budget; a parked call has passed the limit.
import type { Config } from '../config.js';
import { ApprovalStore } from '../policies/approvals/store.js';
import type { Db } from '../store/db.js';
import { IdempotencyStore } from '../policies/idempotency/store.js';
import { approval } from '../policies/approvals/step.js';
import { idempotency } from '../policies/idempotency/step.js';
import { rateLimit } from '../policies/rate-limit/step.js';
import type { PipelineStep } from '../contract/call.js';
import { RedisRateLimitStore } from '../policies/rate-limit/redis-store.js';
import { MemoryRateLimitStore, type RateLimitStore } from '../policies/rate-limit/store.js';

export interface Policies {
  middleware: PipelineStep[];
  rateLimitStore: RateLimitStore;
  approvals: ApprovalStore;
  idempotency: IdempotencyStore;
}

export async function createPolicies(config: Config, db: Db): Promise<Policies> {
  let rateLimitStore: RateLimitStore;
  if (config.redisUrl) {
    const redis = new RedisRateLimitStore(config.redisUrl);
    try {
      await redis.ready();
    } catch (err) {
      await redis.close();
      throw new Error(`REDIS_URL: cannot connect to Redis (${(err as Error).message})`);
    }
    rateLimitStore = redis;
  } else {
    rateLimitStore = new MemoryRateLimitStore();
  }
  const approvals = new ApprovalStore(db);
  const idempotencyStore = new IdempotencyStore(db);
  return {
    middleware: [
      {
        name: 'idempotency',
        middleware: idempotency(idempotencyStore, config.policy.idempotencyTtlSeconds * 1000),
      },
      { name: 'rate-limit', middleware: rateLimit(config.rateLimits, rateLimitStore) },
      { name: 'approval', middleware: approval(approvals, config.policy.approvalTtlSeconds * 1000) },
    ],
    rateLimitStore,
    approvals,
    idempotency: idempotencyStore,
  };
}
