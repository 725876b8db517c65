// The stored idempotent outcomes' life: the periodic sweep drops those past their TTL.
import type { Lifecycle } from '../../engine/lifecycle.js';
import type { IdempotencyStore } from './store.js';

export const idempotencyLifecycle = (store: IdempotencyStore): Lifecycle => ({
  name: 'idempotency',
  sweep: (now) => store.deleteExpired(now),
});
