// Capacity's config (docs/operations.md "Capacity"): the file's `capacity` section with
// TOOLGATE_MAX_SESSIONS and TOOLGATE_MAX_RUNTIMES over its counts.
import { Type, type Static } from 'typebox';
import { parseInteger, type Env } from '../../config/env.js';
import { withDefaults } from '../../config/section.js';

/**
 * How much one replica takes on (docs/operations.md "Capacity"). 0 for a count means "derived from this
 * machine" (src/ops/capacity-defaults.ts): its memory divided by what a session costs on the backend.
 */
export const CapacitySchema = Type.Object(
  {
    maxSessions: Type.Integer({
      minimum: 0,
      default: 0,
      description: 'Live sessions this replica holds (owns, with replicas); 0 = derived from the machine',
    }),
    maxRuntimes: Type.Integer({
      minimum: 0,
      default: 0,
      description: 'Running session runtimes (sandboxes, containers, pods); 0 = derived from the machine',
    }),
    minAvailableMemoryBytes: Type.Integer({
      minimum: 0,
      default: 0,
      description:
        'A new session or runtime start is refused while the host has less memory available than this; ' +
        '0 = derived (5% of the memory, at least 256 MiB)',
    }),
    minFreePids: Type.Integer({
      minimum: 0,
      default: 1024,
      description: 'A new session or runtime start is refused while fewer process ids than this are free',
    }),
    retryAfterSeconds: Type.Integer({ minimum: 1, default: 10 }),
  },
  { additionalProperties: false },
);
export type CapacityConfig = Static<typeof CapacitySchema>;

/** The file's section, each count overridden by its environment variable. */
export function capacityConfig(env: Env, file: Partial<CapacityConfig> | undefined): CapacityConfig {
  const count = (name: string, raw: string | undefined) => parseInteger(name, raw, 0, 0, 1_000_000);
  return withDefaults(CapacitySchema, {
    ...file,
    ...(env.TOOLGATE_MAX_SESSIONS
      ? { maxSessions: count('TOOLGATE_MAX_SESSIONS', env.TOOLGATE_MAX_SESSIONS) }
      : {}),
    ...(env.TOOLGATE_MAX_RUNTIMES
      ? { maxRuntimes: count('TOOLGATE_MAX_RUNTIMES', env.TOOLGATE_MAX_RUNTIMES) }
      : {}),
  });
}
