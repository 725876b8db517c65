// Operations' config: the data filesystem's floor for /readyz (`disk`), the shutdown grace (`shutdown`),
// this process as one of several replicas (`replica`, TOOLGATE_REPLICA_ID and _URL) and OpenTelemetry
// traces (the standard OTEL_* variables).
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import type { Env } from '../config/env.js';
import { ConfigError } from '../config/error.js';

export const DiskSchema = Type.Object(
  {
    minFreeBytes: Type.Integer({
      minimum: 0,
      default: 64 * 1024 * 1024,
      description: '/readyz is not ready when the data filesystem has less free space than this',
    }),
    minFreeInodes: Type.Integer({
      minimum: 0,
      default: 1000,
      description: '/readyz is not ready when the data filesystem has fewer free inodes than this',
    }),
  },
  { additionalProperties: false },
);
export type DiskConfig = Static<typeof DiskSchema>;

export const ShutdownSchema = Type.Object(
  {
    graceSeconds: Type.Number({
      minimum: 0,
      default: 10,
      description: 'On SIGTERM/SIGINT, how long in-flight calls may finish before they are aborted',
    }),
  },
  { additionalProperties: false },
);
export type ShutdownConfig = Static<typeof ShutdownSchema>;

/**
 * This process as one of several replicas sharing a database and a data dir (docs/scaling.md). Without
 * it (the default) the process is the only one: no lease is written and nothing is forwarded.
 */
export const ReplicaSchema = Type.Object(
  {
    id: Type.String({
      pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$',
      description: 'Unique among the replicas',
    }),
    url: Type.String({
      pattern: '^https?://[^/]+/?$',
      description: 'Where the other replicas reach this one (scheme, host, port; no path)',
    }),
    leaseMs: Type.Integer({ minimum: 500, maximum: 600_000, default: 4000 }),
    heartbeatMs: Type.Integer({ minimum: 100, maximum: 60_000, default: 1000 }),
  },
  { additionalProperties: false },
);
export type ReplicaConfig = Static<typeof ReplicaSchema>;

/** The replica's identity: both id and url (env over file), or neither; lease timing from the file. */
export function replicaConfig(env: Env, file: Partial<ReplicaConfig> | undefined): ReplicaConfig | undefined {
  const given = {
    ...file,
    ...(env.TOOLGATE_REPLICA_ID ? { id: env.TOOLGATE_REPLICA_ID } : {}),
    ...(env.TOOLGATE_REPLICA_URL ? { url: env.TOOLGATE_REPLICA_URL } : {}),
  };
  if (given.id === undefined && given.url === undefined) return undefined;
  if (given.id === undefined || given.url === undefined) {
    throw new ConfigError(
      'replica: set both TOOLGATE_REPLICA_ID and TOOLGATE_REPLICA_URL (replica.id and replica.url), or neither',
    );
  }
  const replica = Value.Default(ReplicaSchema, given) as ReplicaConfig;
  const problem = Value.Errors(ReplicaSchema, replica)[0];
  if (problem)
    throw new ConfigError(`replica${problem.instancePath.replace(/\//g, '.')}: ${problem.message}`);
  if (replica.heartbeatMs * 2 > replica.leaseMs) {
    throw new ConfigError(
      'replica.heartbeatMs: at most half of replica.leaseMs (a lease outlives a missed beat)',
    );
  }
  return { ...replica, url: replica.url.replace(/\/$/, '') };
}

/** OpenTelemetry traces: on when an OTLP endpoint is set, off (and free) otherwise. */
export interface TelemetryConfig {
  /** Full OTLP/HTTP traces URL (…/v1/traces); undefined = tracing off. */
  readonly endpoint: string | undefined;
  readonly serviceName: string;
}

/**
 * The standard OTel variables: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is the traces URL as given;
 * OTEL_EXPORTER_OTLP_ENDPOINT is a base URL to which `v1/traces` is appended; OTEL_SDK_DISABLED=true wins.
 */
export function telemetryConfig(env: Env): TelemetryConfig {
  const serviceName = env.OTEL_SERVICE_NAME || 'toolgate';
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' || (!traces && !base)) {
    return { endpoint: undefined, serviceName };
  }
  const [name, raw] = traces
    ? ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', traces]
    : ['OTEL_EXPORTER_OTLP_ENDPOINT', `${base!.replace(/\/+$/, '')}/v1/traces`];
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an http(s) URL, got "${traces ?? base}"`);
  }
  return { endpoint: url.href, serviceName };
}
