// The rate-limit policy: counters in memory, or in Redis when REDIS_URL is set (the app refuses to start
// when Redis cannot be reached), closed at shutdown. Windows expire inside the store itself.
import { definePolicy } from '../../contract/policy.js';
import { RedisRateLimitStore } from './redis-store.js';
import { rateLimit } from './step.js';
import { MemoryRateLimitStore, type RateLimitStore } from './store.js';

async function createRateLimitStore(redisUrl: string | undefined): Promise<RateLimitStore> {
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

export const rateLimitPolicy = definePolicy({
  name: 'rate-limit',
  step: 'rate-limit',
  stage: 'policy',
  create: ({ config }) => createRateLimitStore(config.redisUrl),
  middleware: (store, config) => rateLimit(config.rateLimits, store),
  lifecycle: (store) => ({ close: () => store.close() }),
});
