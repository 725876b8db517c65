// Rate-limit counters in Redis, so several toolgate instances share one limit. One Lua script reads
// both windows and increments atomically; the arithmetic matches the in-memory store.
import { Redis } from 'ioredis';
import { decide, type HitResult, type RateLimitStore } from './store.js';

const SCRIPT = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local previous = tonumber(redis.call('GET', KEYS[2]) or '0')
local limit = tonumber(ARGV[1])
local fraction = tonumber(ARGV[2])
local windowMs = tonumber(ARGV[3])
if previous * (1 - fraction) + current + 1 > limit then
  return {0, current, previous}
end
current = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], windowMs * 2)
return {1, current, previous}
`;

export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix = 'toolgate:rl:',
  ) {
    // Fail fast instead of queueing calls forever when Redis is down: a limiter error is a 503, not a hang.
    let everConnected = false;
    this.redis = new Redis(url, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      // At start, give up after a few tries so a wrong REDIS_URL fails the start; later, keep reconnecting.
      retryStrategy: (times) => (!everConnected && times > 3 ? null : Math.min(times * 200, 2000)),
    });
    this.redis.once('ready', () => (everConnected = true));
    this.redis.on('error', () => {
      // Connection errors surface on the next command; the event only needs a listener.
    });
  }

  async ready(): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve, reject) => {
      this.redis.once('ready', resolve);
      this.redis.once('end', () => reject(new Error('redis connection ended')));
    });
  }

  async hit(key: string, limit: number, windowMs: number, now = Date.now()): Promise<HitResult> {
    const start = Math.floor(now / windowMs) * windowMs;
    const fraction = (now - start) / windowMs;
    const [allowed, current, previous] = (await this.redis.eval(
      SCRIPT,
      2,
      `${this.prefix}${key}:${start}`,
      `${this.prefix}${key}:${start - windowMs}`,
      limit,
      fraction,
      windowMs,
    )) as [number, number, number];
    return decide({ current, previous }, allowed === 1, limit, windowMs, now);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
