// The rate-limit counters' life: made at startup (memory, or Redis when REDIS_URL is set, refusing to
// start when Redis cannot be reached) and closed at shutdown. Windows expire inside the store itself.
import type { Lifecycle } from '../../engine/lifecycle.js';
import { RedisRateLimitStore } from './redis-store.js';
import { MemoryRateLimitStore, type RateLimitStore } from './store.js';

export async function createRateLimitStore(redisUrl: string | undefined): Promise<RateLimitStore> {
  if (!redisUrl) return new MemoryRateLimitStore();
  const redis = new RedisRateLimitStore(redisUrl);
  try {
    await redis.ready();
  } catch (err) {
    await redis.close();
    throw new Error(`REDIS_URL: cannot connect to Redis (${(err as Error).message})`);
  }
  return redis;
}

export const rateLimitLifecycle = (store: RateLimitStore): Lifecycle => ({
  name: 'rate-limit',
  close: () => store.close(),
});
