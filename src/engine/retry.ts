// Retries a tool marked `retryable` when it fails transiently (its storage or runtime was unavailable),
// with exponential backoff, inside the call's timeout. The number of runs is audited (`attempts`).
import { setTimeout as sleep } from 'node:timers/promises';
import { fromStorageError, isToolgateError, type ErrorCode } from '../lib/errors.js';
import type { Middleware } from '../contract/call.js';

export interface RetryPolicy {
  /** Runs in all, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

const TRANSIENT = new Set<ErrorCode>(['STORAGE_UNAVAILABLE', 'RUNTIME_UNAVAILABLE', 'SANDBOX_UNAVAILABLE']);

const isTransient = (err: unknown): boolean => {
  const error = isToolgateError(err) ? err : fromStorageError(err);
  return error !== undefined && TRANSIENT.has(error.code);
};

/** Wait before run `attempt + 1`: base, 2·base, 4·base… capped. */
export const backoffMs = (policy: RetryPolicy, attempt: number): number =>
  Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));

export const retry =
  (policy: RetryPolicy): Middleware =>
  async (call, next) => {
    if (call.entry.tool.retryable !== true) return next();
    for (let attempt = 1; ; attempt++) {
      call.attempts = attempt;
      try {
        const result = await next();
        if (attempt > 1) result.extraMetadata = { ...result.extraMetadata, attempts: attempt };
        return result;
      } catch (err) {
        if (attempt >= policy.attempts || !isTransient(err) || call.cancel?.aborted) throw err;
        await sleep(backoffMs(policy, attempt), undefined, { signal: call.cancel?.signal }).catch(() => {
          throw err;
        });
      }
    }
  };
