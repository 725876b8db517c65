// Rate limits' config: the file's `rateLimits` (per category, per tool or per session) and REDIS_URL, the
// store that shares them between replicas.
import { Type, type Static } from 'typebox';
import type { Env } from '../../config/env.js';

export const RateLimitRuleSchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, description: 'Calls allowed per window' }),
    windowSeconds: Type.Number({ exclusiveMinimum: 0, description: 'Window length in seconds' }),
  },
  { additionalProperties: false },
);
/** Keys are category names, `tool:<name>` for one tool, or `*` for all calls of a session. */
export const RateLimitsSchema = Type.Record(
  Type.String({ minLength: 1, maxLength: 100 }),
  RateLimitRuleSchema,
  {
    description: 'Rate limits by category name, "tool:<name>", or "*" (every call of the session)',
  },
);
export type RateLimits = Static<typeof RateLimitsSchema>;

/** The file's limits (none by default) and where they are counted (Redis, or this process). */
export function rateLimitConfig(env: Env, file: RateLimits | undefined) {
  return { rateLimits: file ?? {}, redisUrl: env.REDIS_URL || undefined };
}
