// Environment and the optional JSON config file → one typed, validated, frozen Config. Each subsystem
// declares its own section in its folder's config.ts (schema, defaults, environment variables, the checks
// that need only that section); this root composes them into the file's schema and the Config, and runs
// the checks that span sections. Nothing else in src/ reads process.env.
import { Type, type Static } from 'typebox';
import { fileForm, withDefaults } from './config/section.js';
import { type Env } from './config/env.js';
import { ConfigError } from './config/error.js';
import { readConfigFile } from './config/read-file.js';
import { serviceConfig, type LogFormat, type LogLevel } from './config/service.js';
import { LspSchema, lspConfig, type LspConfig } from './code/lsp/config.js';
import { contractConfig, LimitsSchema, type LimitsConfig } from './contract/config.js';
import { HttpSchema, httpConfig, ApiKeysSchema, type ApiKeyConfig, type HttpConfig } from './http/config.js';
import { deepFreeze } from './lib/deep-freeze.js';
import { NetworkSchema, networkConfig, type NetworkConfig } from './network/config.js';
import { CapacitySchema, capacityConfig, type CapacityConfig } from './ops/capacity/config.js';
import * as ops from './ops/config.js';
import { ApprovalSchema, PolicySchema, policyConfig, type PolicyConfig } from './policies/config.js';
import * as permissions from './policies/permissions/config.js';
import { RateLimitsSchema, rateLimitConfig, type RateLimits } from './policies/rate-limit/config.js';
import { PreviewSchema, previewConfig, type PreviewConfig } from './preview/config.js';
import * as backends from './runtime/backends/config.js';
import * as runtime from './runtime/config.js';
import { templatesDir } from './sandbox/config.js';
import { ToolFoldersSchema, toolFolderConfig, type ToolFoldersConfig } from './sources/folder/config.js';
import * as mcp from './sources/mcp/config.js';
import * as store from './store/config.js';
import * as transfer from './transfer/config.js';

// The names this module has always exported, now declared by their sections.
export { ConfigError } from './config/error.js';
export type { LogLevel } from './config/service.js';
export type { ApiKeyConfig } from './http/config.js';
export { NetworkPolicySchema, type NetworkPolicy } from './network/config.js';
export type { ReplicaConfig, TelemetryConfig } from './ops/config.js';
export { BUILTIN_PROFILES, type Permission, type ProfileConfig } from './policies/permissions/config.js';
export { RateLimitRuleSchema, RateLimitsSchema, type RateLimits } from './policies/rate-limit/config.js';
export type { ContainerBackendConfig, SandboxMode } from './runtime/backends/config.js';
export type { DockerBackendConfig } from './runtime/backends/docker/config.js';
export type { KubernetesBackendConfig } from './runtime/backends/kubernetes/config.js';
export type { McpServerConfig } from './sources/mcp/config.js';

/** The config file (TOOLGATE_CONFIG): each key is one subsystem's section, every key may be left out. */
export const ConfigFileSchema = Type.Object(
  {
    $schema: Type.Optional(
      Type.String({ description: "This file's JSON Schema, for editors (docs/config.schema.json); ignored" }),
    ),
    profiles: Type.Optional(permissions.ProfilesSchema),
    rateLimits: Type.Optional(RateLimitsSchema),
    approval: Type.Optional(ApprovalSchema),
    limits: fileForm(LimitsSchema),
    sessions: fileForm(store.SessionsSchema),
    audit: fileForm(store.AuditSchema),
    archive: fileForm(transfer.ArchiveSchema),
    blobs: fileForm(transfer.BlobsSchema),
    database: Type.Optional(store.DatabaseSchema),
    git: fileForm(transfer.GitSchema),
    network: fileForm(NetworkSchema),
    policy: fileForm(PolicySchema),
    shutdown: fileForm(ops.ShutdownSchema),
    replica: fileForm(ops.ReplicaSchema),
    runtime: fileForm(runtime.RuntimeSchema),
    terminals: fileForm(runtime.TerminalsSchema),
    kernels: fileForm(runtime.KernelsSchema),
    runtimeBackend: Type.Optional(backends.RuntimeBackendSchema),
    lsp: fileForm(LspSchema),
    disk: fileForm(ops.DiskSchema),
    capacity: fileForm(CapacitySchema),
    apiKeys: Type.Optional(ApiKeysSchema),
    http: fileForm(HttpSchema),
    preview: fileForm(PreviewSchema),
    toolFolders: fileForm(ToolFoldersSchema),
    mcpAllowedHosts: Type.Optional(mcp.McpAllowedHostsSchema),
    mcpServers: Type.Optional(mcp.McpServersFileSchema),
  },
  { additionalProperties: false },
);
export type ConfigFile = Static<typeof ConfigFileSchema>;

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly apiKey: string | undefined;
  readonly sandbox: backends.SandboxMode;
  /** The docker or kubernetes backend's settings (images, limits), when one of them is the sandbox. */
  readonly containers: backends.ContainerBackendConfig | undefined;
  readonly pluginsDir: string | undefined;
  /** Tool folders (definition.json + an entry program), run inside the session runtime's sandbox. */
  readonly toolsDir: string | undefined;
  readonly toolFolders: Readonly<ToolFoldersConfig>;
  readonly logLevel: LogLevel;
  /** pretty: readable lines (pino-pretty); json: one JSON object a line; auto: pretty on a terminal. */
  readonly logFormat: LogFormat;
  readonly redisUrl: string | undefined;
  /** Where the stores keep their state: url undefined is SQLite in the data dir. */
  readonly database: Readonly<store.DatabaseConfig>;
  readonly profiles: Readonly<Record<string, permissions.ProfileConfig>>;
  readonly rateLimits: RateLimits;
  readonly approval: readonly string[];
  readonly limits: Readonly<LimitsConfig>;
  readonly sessions: Readonly<store.SessionsConfig>;
  readonly runtime: Readonly<runtime.RuntimeConfig>;
  readonly terminals: Readonly<runtime.TerminalsConfig>;
  readonly kernels: Readonly<runtime.KernelsConfig>;
  /** Language servers for the code tools (TOOLGATE_LSP=off turns them off). */
  readonly lsp: Readonly<LspConfig>;
  /** MCP servers whose tools are offered as `<server>__<tool>`. */
  readonly mcpServers: Readonly<Record<string, mcp.McpServerConfig>>;
  readonly disk: Readonly<ops.DiskConfig>;
  /** Limits of one replica: sessions, runtimes, host memory and pids (TOOLGATE_MAX_SESSIONS, _RUNTIMES). */
  readonly capacity: Readonly<CapacityConfig>;
  /** Named API keys with the admin's rights and a session quota each (config file `apiKeys`). */
  readonly apiKeys: Readonly<Record<string, ApiKeyConfig>>;
  /** Host/Origin names accepted besides the service's own (TOOLGATE_ALLOWED_HOSTS / _ORIGINS, `http`). */
  readonly http: Readonly<HttpConfig>;
  /** Previews of sessions' servers: link lifetimes (which profiles may expose ports: `profiles.*.preview`). */
  readonly preview: Readonly<PreviewConfig>;
  readonly audit: Readonly<store.AuditConfig>;
  readonly archive: Readonly<transfer.ArchiveConfig>;
  readonly blobs: Readonly<transfer.BlobsConfig>;
  readonly git: Readonly<transfer.GitConfig>;
  /** The egress proxy: ranges the operator opened, the hosts file it resolves with. */
  readonly network: Readonly<NetworkConfig>;
  /** Directory of workspace templates (POST /v1/sessions `template`); undefined: none. */
  readonly templatesDir: string | undefined;
  readonly policy: Readonly<PolicyConfig>;
  readonly shutdown: Readonly<ops.ShutdownConfig>;
  readonly telemetry: ops.TelemetryConfig;
  /** Set when this process is one of several replicas (TOOLGATE_REPLICA_ID and _URL, or `replica`). */
  readonly replica: Readonly<ops.ReplicaConfig> | undefined;
}

/** Builds the config from an environment (process.env in the server, a plain object in tests). */
export function loadConfig(env: Env): Config {
  const file: ConfigFile = env.TOOLGATE_CONFIG ? readConfigFile(env.TOOLGATE_CONFIG, ConfigFileSchema) : {};
  const sandbox = backends.sandboxMode(env, file.runtimeBackend?.type);
  const containers = backends.containerConfig(
    sandbox,
    file.runtimeBackend,
    env.TOOLGATE_RUNTIME_IMAGE || undefined,
  );
  const config: Config = {
    ...serviceConfig(env),
    sandbox,
    containers,
    ...contractConfig(env, file.limits),
    ...toolFolderConfig(env, file.toolFolders),
    ...rateLimitConfig(env, file.rateLimits),
    database: store.databaseConfig(env.DATABASE_URL, file.database),
    profiles: permissions.profilesConfig(file.profiles),
    ...policyConfig(file.policy, file.approval),
    sessions: withDefaults(store.SessionsSchema, file.sessions),
    disk: withDefaults(ops.DiskSchema, file.disk),
    capacity: capacityConfig(env, file.capacity),
    apiKeys: file.apiKeys ?? {},
    http: httpConfig(env, file.http),
    preview: previewConfig(env.TOOLGATE_PREVIEW_DOMAIN, file.preview),
    runtime: runtime.runtimeConfig(env, file.runtime),
    terminals: withDefaults(runtime.TerminalsSchema, file.terminals),
    kernels: withDefaults(runtime.KernelsSchema, file.kernels),
    lsp: lspConfig(env, file.lsp),
    audit: withDefaults(store.AuditSchema, file.audit),
    archive: withDefaults(transfer.ArchiveSchema, file.archive),
    blobs: withDefaults(transfer.BlobsSchema, file.blobs),
    git: withDefaults(transfer.GitSchema, file.git),
    network: networkConfig(file.network),
    templatesDir: templatesDir(env),
    shutdown: withDefaults(ops.ShutdownSchema, file.shutdown),
    telemetry: ops.telemetryConfig(env),
    replica: ops.replicaConfig(env, file.replica),
    mcpServers: mcp.mcpServersConfig(file.mcpServers, file.mcpAllowedHosts),
  };
  permissions.checkProfileNetworks(config.profiles);
  checkProfileImages(config.profiles, containers);
  return deepFreeze(config);
}

/** A profile's image must be in the table (or no container backend is in use, where it is refused at use). */
function checkProfileImages(
  profiles: Readonly<Record<string, permissions.ProfileConfig>>,
  containers: backends.ContainerBackendConfig | undefined,
): void {
  if (!containers) return;
  for (const [name, profile] of Object.entries(profiles)) {
    if (profile.image !== undefined && !(profile.image in containers.images)) {
      throw new ConfigError(
        `profiles.${name}.image: "${profile.image}" is not a key of runtimeBackend.images (${Object.keys(containers.images).join(', ')})`,
      );
    }
  }
}
