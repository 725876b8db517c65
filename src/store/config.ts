// The stores' config: where they keep their state (`database`, DATABASE_URL), how long sessions live
// (`sessions`) and how long audit rows are kept (`audit`).
import { Type, type Static } from 'typebox';
import { ConfigError } from '../config/error.js';

/** postgres://… or postgresql://…: the schemes that choose the PostgreSQL driver (src/store/open.ts). */
const POSTGRES_URL = '^postgres(ql)?://';

export const DatabaseSchema = Type.Object(
  {
    url: Type.Optional(
      Type.String({
        pattern: POSTGRES_URL,
        description:
          'PostgreSQL for every store, shared by replicas (postgres://user:password@host:5432/db); unset: SQLite in the data dir. DATABASE_URL wins.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type DatabaseConfig = Static<typeof DatabaseSchema>;

export const SessionsSchema = Type.Object(
  {
    defaultTtlSeconds: Type.Integer({ minimum: 1, default: 24 * 3600 }),
    maxTtlSeconds: Type.Integer({ minimum: 1, default: 30 * 24 * 3600 }),
    sweepIntervalSeconds: Type.Number({ exclusiveMinimum: 0, default: 60 }),
    idleTtlSeconds: Type.Integer({
      minimum: 0,
      default: 0,
      description: 'A session with no tool call for this long expires; 0 = no idle expiry',
    }),
  },
  { additionalProperties: false },
);
export type SessionsConfig = Static<typeof SessionsSchema>;

export const AuditSchema = Type.Object(
  { retentionDays: Type.Integer({ minimum: 0, default: 30, description: '0 = keep forever' }) },
  { additionalProperties: false },
);
export type AuditConfig = Static<typeof AuditSchema>;

/** DATABASE_URL over the file's database.url. The value is never echoed: it may hold a password. */
export function databaseConfig(
  fromEnv: string | undefined,
  file: DatabaseConfig | undefined,
): DatabaseConfig {
  if (!fromEnv) return { url: file?.url };
  if (!new RegExp(POSTGRES_URL, 'i').test(fromEnv)) {
    throw new ConfigError(
      'DATABASE_URL must be a postgres:// or postgresql:// URL (leave it unset for SQLite in the data dir)',
    );
  }
  return { url: fromEnv };
}
