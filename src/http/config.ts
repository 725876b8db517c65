// The HTTP edge's config: which Host and Origin headers it answers (the file's `http` section,
// TOOLGATE_ALLOWED_HOSTS and _ORIGINS) and the named API keys besides the admin key (`apiKeys`).
import { Type, type Static } from 'typebox';
import { parseList, type Env } from '../config/env.js';
import { ConfigError } from '../config/error.js';

/**
 * Which Host and Origin headers the service answers (DNS rebinding): besides its own names. A deployment
 * behind a proxy lists the names the proxy forwards (`tools.example.com`) and the browser origins of its
 * pages (`https://tools.example.com`).
 */
export const HttpSchema = Type.Object(
  {
    allowedHosts: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description: 'Host header names (or name:port) accepted besides loopback names',
    }),
    allowedOrigins: Type.Array(Type.String({ pattern: '^https?://[^/]+$' }), {
      default: [],
      description: 'Origins (scheme://host[:port]) accepted besides the request host and loopback',
    }),
  },
  { additionalProperties: false },
);
export type HttpConfig = Static<typeof HttpSchema>;

/**
 * A named API key besides the admin key: the same rights, and a quota of live sessions of its own (its
 * sessions' forks count too). Only the key's SHA-256 is in the file, never the key.
 */
const ApiKeySchema = Type.Object(
  {
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'hex SHA-256 of the key' }),
    maxSessions: Type.Integer({ minimum: 1, description: 'Live sessions this key may hold at once' }),
  },
  { additionalProperties: false },
);
export type ApiKeyConfig = Static<typeof ApiKeySchema>;
/** The file's `apiKeys`: key name → its hash and quota. */
export const ApiKeysSchema = Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_-]{0,30}$' }), ApiKeySchema, {
  additionalProperties: false,
});

/** The config file's `http`, each list extended by its comma-separated environment variable. */
export function httpConfig(env: Env, file: Partial<HttpConfig> | undefined): HttpConfig {
  const origins = parseList(env.TOOLGATE_ALLOWED_ORIGINS);
  const badOrigin = origins.find((origin) => !/^https?:\/\/[^/]+$/.test(origin));
  if (badOrigin !== undefined) {
    throw new ConfigError(
      `TOOLGATE_ALLOWED_ORIGINS: "${badOrigin}" is not an origin (scheme://host[:port], no path)`,
    );
  }
  return {
    allowedHosts: [...(file?.allowedHosts ?? []), ...parseList(env.TOOLGATE_ALLOWED_HOSTS)].map((host) =>
      host.toLowerCase(),
    ),
    allowedOrigins: [...(file?.allowedOrigins ?? []), ...origins].map((origin) => origin.toLowerCase()),
  };
}
