// The policies' shared config: how long their state lives and how they retry (`policy`), and which tools
// or categories need an approval (`approval`).
import { Type, type Static } from 'typebox';
import { withDefaults } from '../config/section.js';

export const PolicySchema = Type.Object(
  {
    approvalTtlSeconds: Type.Integer({
      minimum: 1,
      default: 3600,
      description: 'How long a parked call waits',
    }),
    idempotencyTtlSeconds: Type.Integer({ minimum: 1, default: 24 * 3600 }),
    /** Failed authentications allowed per client IP per window, before that IP gets 429. */
    authFailuresPerWindow: Type.Integer({ minimum: 1, default: 50 }),
    authWindowSeconds: Type.Integer({ minimum: 1, default: 60 }),
    /** Runs of a retryable tool that fails transiently (storage or runtime unavailable), first one included. */
    retryAttempts: Type.Integer({ minimum: 1, maximum: 10, default: 3 }),
    /** Wait before the first retry; doubled for each further one, up to retryMaxDelayMs. */
    retryBaseDelayMs: Type.Integer({ minimum: 0, default: 100 }),
    retryMaxDelayMs: Type.Integer({ minimum: 0, default: 2000 }),
    /** How long a quiet turn (X-Toolgate-Turn) is remembered for duplicate detection. */
    turnTtlSeconds: Type.Integer({ minimum: 1, default: 900 }),
  },
  { additionalProperties: false },
);
export type PolicyConfig = Static<typeof PolicySchema>;

/** The file's `approval`: tool or category names whose calls wait for an approval. */
export const ApprovalSchema = Type.Array(Type.String());

/** The file's `policy` with its defaults, and its `approval` list (empty by default). */
export function policyConfig(policy: Partial<PolicyConfig> | undefined, approval: string[] | undefined) {
  return { policy: withDefaults(PolicySchema, policy), approval: approval ?? [] };
}
