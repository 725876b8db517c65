// Rate limits per session: operator defaults (config rateLimits) overridden per session at creation.
// Rules apply by key: "*" (every call), a category name, or "tool:<name>". A call must fit every rule
// that applies; the IETF RateLimit-Policy / RateLimit headers describe the tightest one.
import type { RateLimits } from '../../config.js';
import { toolgateError } from '../../lib/errors.js';
import type { HitResult, RateLimitStore } from './store.js';
import {
  isOperatorRead,
  type CallState,
  type Middleware,
  type Next,
  type RunResult,
} from '../../contract/call.js';

const policyName = (rule: string) => rule.replace(/[^A-Za-z0-9_:*-]/g, '_');

export const rateLimit =
  (defaults: RateLimits, store: RateLimitStore): Middleware =>
  (call, next) => {
    const { session } = call.request;
    // The operator looking at a session spends none of its agent's budget.
    if (isOperatorRead(call.request)) return next();
    const tool = call.entry.tool;
    const rules = { ...defaults, ...session.rateLimits };
    const applicable = ['*', tool.category, `tool:${tool.name}`].filter((key) => rules[key] !== undefined);
    return applicable.length === 0 ? next() : limit(store, rules, applicable, call, next);
  };

async function limit(
  store: RateLimitStore,
  rules: RateLimits,
  applicable: string[],
  call: CallState,
  next: Next,
): Promise<RunResult> {
  const { session } = call.request;

  let tightest: { rule: string; result: HitResult; limit: number; windowSeconds: number } | undefined;
  const policies: string[] = [];
  for (const rule of applicable) {
    const { limit, windowSeconds } = rules[rule];
    policies.push(`"${policyName(rule)}";q=${limit};w=${Math.ceil(windowSeconds)}`);
    const result = await store.hit(`${session.id}:${rule}`, limit, windowSeconds * 1000);
    if (
      !tightest ||
      !result.allowed ||
      (tightest.result.allowed && result.remaining < tightest.result.remaining)
    ) {
      tightest = { rule, result, limit, windowSeconds };
    }
    if (!result.allowed) break;
  }
  // `applicable` is never empty (the step only calls this with a rule), so one rule was hit.
  if (!tightest) return next();
  const { rule, result, limit, windowSeconds } = tightest;
  call.headers['ratelimit-policy'] = policies.join(', ');
  call.headers['ratelimit'] = `"${policyName(rule)}";r=${result.remaining};t=${result.resetSeconds}`;
  if (!result.allowed) {
    call.headers['retry-after'] = String(result.retryAfterSeconds);
    throw toolgateError(
      'RATE_LIMITED',
      `Rate limit "${rule}" exceeded: ${limit} calls per ${windowSeconds} s`,
      {
        suggestion: `Wait ${result.retryAfterSeconds} s before calling again.`,
        details: { rule, limit, windowSeconds, retryAfterSeconds: result.retryAfterSeconds },
        headers: { 'retry-after': String(result.retryAfterSeconds) },
      },
    );
  }
  return next();
}
