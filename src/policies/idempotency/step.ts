// Idempotency-Key: a repeat with the same key and body returns the stored outcome without running the
// tool again (header Idempotent-Replayed: true); the same key with another body is 422. Concurrent
// repeats wait for the first. Outcomes a retry could change (429, 5xx, pending approval) are not stored.
import { createHash } from 'node:crypto';
import type { IdempotencyStore, StoredCall, StoredOutcome } from './store.js';
import { isToolgateError, toolgateError, ERROR_CODES, type ErrorCode } from '../../lib/errors.js';
import type { Middleware, Next, ResolvedCall, RunResult } from '../../contract/call.js';

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const NOT_STORED = new Set<string>(['RATE_LIMITED', 'APPROVAL_PENDING', 'SHUTTING_DOWN', 'TIMEOUT']);

function replay(outcome: StoredOutcome): RunResult {
  if (outcome.ok) return { data: JSON.parse(outcome.dataJson), dataJson: outcome.dataJson };
  const code = (outcome.error.code in ERROR_CODES ? outcome.error.code : 'TOOL_FAILED') as ErrorCode;
  throw toolgateError(code, outcome.error.message, {
    suggestion: outcome.error.suggestion,
    details: outcome.error.details,
  });
}

export const idempotency = (store: IdempotencyStore, ttlMs: number): Middleware => {
  /** Per session and key, the run under way here: settles once its outcome is stored and it is gone. */
  const inFlight = new Map<string, Promise<void>>();
  const withKey = async (call: ResolvedCall, next: Next, key: string): Promise<RunResult> => {
    if (!KEY_PATTERN.test(key)) {
      throw toolgateError('VALIDATION_FAILED', 'Idempotency-Key must be 1-255 visible ASCII characters', {
        details: { errors: [{ field: 'Idempotency-Key', problem: 'is malformed' }] },
      });
    }
    const sessionId = call.request.session.id;
    const requestHash = createHash('sha256')
      .update(`${call.entry.tool.name}\0${JSON.stringify(call.request.input) ?? ''}`)
      .digest('hex');
    const slot = `${sessionId}\0${key}`;
    // Waits for a run of the same key in this process, then looks the key up; the lookup is a promise,
    // so a run that began meanwhile is waited for and the key looked up again.
    let stored: StoredCall | undefined;
    for (;;) {
      const running = inFlight.get(slot);
      if (running) {
        await running;
        continue;
      }
      stored = await store.get(sessionId, key);
      if (!inFlight.has(slot)) break;
    }
    if (stored) {
      if (stored.requestHash !== requestHash) {
        throw toolgateError(
          'IDEMPOTENCY_KEY_REUSED',
          'This Idempotency-Key was used with a different request',
          {
            suggestion: 'Use a new key for a new request; repeat a request only with the identical body.',
          },
        );
      }
      call.headers['idempotent-replayed'] = 'true';
      return replay(stored.outcome);
    }

    // The outcome is the call's answer even when it cannot be remembered (a full disk refusing the row):
    // a call that ran is never answered as if it had not; only a repeat of it would run again.
    const remember = async (outcome: StoredOutcome) => {
      try {
        await store.put(sessionId, key, requestHash, outcome, ttlMs);
      } catch {
        // not remembered: see above
      }
    };
    let finished!: () => void;
    inFlight.set(slot, new Promise<void>((resolve) => (finished = resolve)));
    try {
      const result = await next();
      result.dataJson ??= JSON.stringify(result.data) ?? 'null';
      await remember({ ok: true, dataJson: result.dataJson });
      return result;
    } catch (err) {
      if (isToolgateError(err) && err.statusCode < 500 && !NOT_STORED.has(err.code)) {
        const { code, message, suggestion, details } = err.toBody();
        await remember({ ok: false, error: { code, message, suggestion, details } });
      }
      throw err;
    } finally {
      // Gone from the map before its waiters wake: they look the key up, and find the stored outcome.
      inFlight.delete(slot);
      finished();
    }
  };
  return (call, next) => {
    const key = call.request.idempotencyKey;
    return key === undefined ? next() : withKey(call, next, key);
  };
};
