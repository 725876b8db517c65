// The idempotency policy: outcomes stored by Idempotency-Key in the database, replayed to repeats; the
// periodic sweep drops those past their TTL.
import { definePolicy } from '../../contract/policy.js';
import { idempotency } from './step.js';
import { IdempotencyStore } from './store.js';

export const idempotencyPolicy = definePolicy({
  name: 'idempotency',
  step: 'idempotency',
  stage: 'policy',
  create: ({ db }) => new IdempotencyStore(db),
  middleware: (store, config) => idempotency(store, config.policy.idempotencyTtlSeconds * 1000),
  lifecycle: (store) => ({ sweep: (now) => store.deleteExpired(now) }),
});
