// Rate-limit counters: a sliding-window counter (the previous fixed window, weighted by how much of it
// still overlaps, plus the current one). The in-memory store serves one instance; the Redis store
// (rate-limit-redis.ts) shares the same counters between instances.

export interface WindowCounts {
  /** Calls counted in the current fixed window, including this one when allowed. */
  current: number;
  previous: number;
}

export interface HitResult {
  allowed: boolean;
  /** Calls left in the window after this one. */
  remaining: number;
  /** Seconds until a call would be allowed again (0 when allowed). */
  retryAfterSeconds: number;
  /** Seconds until the window's quota is fully restored. */
  resetSeconds: number;
}

export interface RateLimitStore {
  /** Counts one call against `key` unless that would exceed `limit` in the sliding window. */
  hit(key: string, limit: number, windowMs: number, now?: number): Promise<HitResult>;
  close(): Promise<void>;
}

/** The sliding-window estimate, shared by both stores so they agree exactly. */
export function estimate(counts: WindowCounts, elapsedFraction: number): number {
  return counts.previous * (1 - elapsedFraction) + counts.current;
}

export function decide(
  counts: WindowCounts,
  allowed: boolean,
  limit: number,
  windowMs: number,
  now: number,
): HitResult {
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const fraction = (now - windowStart) / windowMs;
  const used = estimate(counts, fraction);
  const resetSeconds = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
  if (allowed)
    return { allowed, remaining: Math.max(0, Math.floor(limit - used)), retryAfterSeconds: 0, resetSeconds };
  // When will the weighted previous window have decayed enough for one more call?
  let retryMs = windowStart + windowMs - now;
  if (counts.previous > 0 && counts.current < limit) {
    const neededFraction = 1 - (limit - 1 - counts.current) / counts.previous;
    retryMs = Math.max(0, (neededFraction - fraction) * windowMs);
  }
  return { allowed, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil(retryMs / 1000)), resetSeconds };
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { start: number; current: number; previous: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor() {
    // Drop counters nobody touched for a while so the map does not grow with every session ever seen.
    this.sweeper = setInterval(() => this.prune(Date.now()), 60_000);
    this.sweeper.unref();
  }

  async hit(key: string, limit: number, windowMs: number, now = Date.now()): Promise<HitResult> {
    const start = Math.floor(now / windowMs) * windowMs;
    let entry = this.windows.get(key);
    if (!entry) this.windows.set(key, (entry = { start, current: 0, previous: 0 }));
    if (entry.start !== start) {
      entry.previous = entry.start === start - windowMs ? entry.current : 0;
      entry.current = 0;
      entry.start = start;
    }
    const fraction = (now - start) / windowMs;
    const allowed = estimate(entry, fraction) + 1 <= limit;
    if (allowed) entry.current++;
    return decide(entry, allowed, limit, windowMs, now);
  }

  private prune(now: number): void {
    for (const [key, entry] of this.windows) {
      if (now - entry.start > 10 * 60_000) this.windows.delete(key);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}
