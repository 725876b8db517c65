// Environment and the optional JSON config file → one typed, validated, frozen Config.
// Nothing else in src/ reads process.env.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Type, type Static, type TObject } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { CapabilitiesSchema } from './lib/capabilities.js';
import { isCidr, parseAllowEntry } from './lib/net-patterns.js';

const PermissionSchema = Type.Union([
  Type.Literal('read'),
  Type.Literal('write'),
  Type.Literal('execute'),
  Type.Literal('network'),
]);
export type Permission = Static<typeof PermissionSchema>;

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

/**
 * A session's egress policy: `off` (no way out), `allowlist` (only the names, "*.example.com" wildcards
 * and CIDR ranges in `allow`) or `open` (any public address). Blocked ranges stay blocked in every mode.
 */
export const NetworkPolicySchema = Type.Object(
  {
    mode: Type.Union([Type.Literal('off'), Type.Literal('allowlist'), Type.Literal('open')]),
    allow: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 260 }), {
        maxItems: 500,
        description: 'Host names, "*.example.com" (any subdomain) and CIDR ranges; used in allowlist mode',
      }),
    ),
  },
  { additionalProperties: false },
);
export type NetworkPolicy = Static<typeof NetworkPolicySchema>;

const ProfileSchema = Type.Object(
  {
    permissions: Type.Array(PermissionSchema, { uniqueItems: true }),
    network: Type.Optional(NetworkPolicySchema),
    categories: Type.Optional(Type.Array(Type.String())),
    excludeTools: Type.Optional(Type.Array(Type.String())),
    /** Tools carrying any of these tags are left out (SynthDev's role exclusions by tag). */
    excludeTags: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    approval: Type.Optional(
      Type.Array(Type.String(), { description: 'tool or category names needing approval' }),
    ),
    fork: Type.Optional(
      Type.Boolean({
        description: 'sessions of this profile may fork themselves (POST /v1/sessions/{id}/fork)',
      }),
    ),
    image: Type.Optional(
      Type.String({ minLength: 1, description: 'image key of its sessions (docker, kubernetes backends)' }),
    ),
    preview: Type.Optional(
      Type.Object(
        {
          expose: Type.Boolean({
            description:
              'sessions of this profile may expose ports for previews (expose_port, docs/previews.md)',
          }),
          ports: Type.Optional(
            Type.Array(Type.Integer({ minimum: 1, maximum: 65535 }), {
              uniqueItems: true,
              maxItems: 64,
              description: 'ports exposed from the start, without a call of expose_port',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    editDiagnostics: Type.Optional(
      Type.Boolean({
        description:
          "false: edits of its sessions do not report the language server's new problems (default true)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ProfileConfig = Static<typeof ProfileSchema>;

const LimitsSchema = Type.Object(
  {
    readMaxBytes: Type.Integer({ minimum: 1024, default: 10 * 1024 * 1024 }),
    editMaxBytes: Type.Integer({ minimum: 1024, default: 10 * 1024 * 1024 }),
    writeMaxBytes: Type.Integer({ minimum: 1024, default: 10 * 1024 * 1024 }),
    outputMaxBytes: Type.Integer({ minimum: 1024, default: 256 * 1024 }),
    maxEntries: Type.Integer({ minimum: 1, default: 5000 }),
    toolTimeoutMs: Type.Integer({ minimum: 100, default: 60_000 }),
    commandTimeoutMs: Type.Integer({ minimum: 100, default: 120_000 }),
    commandMaxTimeoutMs: Type.Integer({ minimum: 100, default: 600_000 }),
    shellsPerSession: Type.Integer({
      minimum: 1,
      default: 4,
      description: 'Persistent shells a session may have open at once (docs/shells.md)',
    }),
    shellIdleSeconds: Type.Integer({
      minimum: 1,
      default: 1800,
      description: 'A persistent shell with no command for this long is closed (and reported so)',
    }),
    bodyLimitBytes: Type.Integer({ minimum: 1024, default: 16 * 1024 * 1024 }),
    cpuWorkers: Type.Integer({
      minimum: 0,
      default: 0,
      description:
        "Worker threads for calls' CPU-heavy work (edit matching, patch placing, HTML conversion); " +
        '0 = the cores, at least 4 and at most 8 (one session uses one at a time)',
    }),
    cpuJobMs: Type.Integer({
      minimum: 100,
      default: 10_000,
      description: 'Longest one CPU-heavy job of a call may take (queueing included); then 504 TIMEOUT',
    }),
    cpuJobMemoryMb: Type.Integer({
      minimum: 32,
      default: 512,
      description: 'Heap of each CPU worker; a job that needs more ends with 413 INPUT_TOO_LARGE',
    }),
    workspaceMaxBytes: Type.Integer({ minimum: 0, default: 0, description: '0 = no quota' }),
    egressBytes: Type.Integer({
      minimum: 0,
      default: 0,
      description: "Bytes (up and down) a session's network connections may move in all; 0 = no quota",
    }),
    uploadMaxBytes: Type.Integer({
      minimum: 1024,
      default: 1024 * 1024 * 1024,
      description: 'Largest raw file upload or archive body (streamed, never held in memory)',
    }),
  },
  { additionalProperties: false },
);

const SessionsSchema = Type.Object(
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

const ShutdownSchema = Type.Object(
  {
    graceSeconds: Type.Number({
      minimum: 0,
      default: 10,
      description: 'On SIGTERM/SIGINT, how long in-flight calls may finish before they are aborted',
    }),
  },
  { additionalProperties: false },
);

/**
 * This process as one of several replicas sharing a database and a data dir (docs/scaling.md). Without
 * it (the default) the process is the only one: no lease is written and nothing is forwarded.
 */
const ReplicaSchema = Type.Object(
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

const RuntimeSchema = Type.Object(
  {
    idleSeconds: Type.Number({
      exclusiveMinimum: 0,
      default: 300,
      description: 'A session runtime with no operation and no running command for this long is stopped',
    }),
    hangSeconds: Type.Number({
      exclusiveMinimum: 0,
      default: 10,
      description: 'A runtime that does not answer a ping for this long while busy is killed and restarted',
    }),
  },
  { additionalProperties: false },
);

/** Terminals (exec_command, write_stdin): PTY programs a session keeps open in its runtime. */
const TerminalsSchema = Type.Object(
  {
    maxPerSession: Type.Integer({
      minimum: 0,
      maximum: 64,
      default: 8,
      description: 'Open terminals per session',
    }),
    idleSeconds: Type.Number({
      exclusiveMinimum: 0,
      default: 1800,
      description: 'A terminal no call read or wrote for this long is closed (its program hung up)',
    }),
    keepBytes: Type.Integer({
      minimum: 1024,
      default: 1024 * 1024,
      description: 'Unread output kept per terminal (the newest part)',
    }),
  },
  { additionalProperties: false },
);

/** Code kernels (run_code): persistent interpreters a session keeps in its runtime. */
const KernelsSchema = Type.Object(
  {
    maxPerSession: Type.Integer({ minimum: 0, maximum: 16, default: 4, description: 'Kernels per session' }),
    idleSeconds: Type.Number({
      exclusiveMinimum: 0,
      default: 1800,
      description: 'A kernel that ran no cell for this long is shut down (its variables are gone)',
    }),
    inlineImageBytes: Type.Integer({
      minimum: 0,
      default: 1024 * 1024,
      description: 'Images a cell shows up to this size come back base64 as well as saved (0: only saved)',
    }),
  },
  { additionalProperties: false },
);

/** Image keys: what a profile or a session names (`image: "python"`); the operator maps them to images. */
const ImageKeySchema = Type.String({ pattern: '^[a-z][a-z0-9_-]{0,30}$' });

/** What every container backend shares: the image table and the limits of one runtime container or pod. */
const containerFields = {
  images: Type.Record(ImageKeySchema, Type.String({ minLength: 1 }), {
    default: { base: 'toolgate/runtime-base:1' },
    description: 'Image key → image reference; sessions may only choose among these keys',
  }),
  defaultImage: Type.String({ default: 'base', description: 'The image key of sessions that name none' }),
  /**
   * Host path of a Linux Node.js binary the runtime runs on, shown read-only at /toolgate/node (docker);
   * default: the service's own. Kubernetes takes it from `runtimeImageNode` instead (pods see no host path).
   */
  nodeBinary: Type.Optional(Type.String({ minLength: 1 })),
  user: Type.String({ default: '65534:65534', description: 'uid:gid the runtime and its commands run as' }),
  memoryBytes: Type.Integer({ minimum: 16 * 1024 * 1024, default: 1024 * 1024 * 1024 }),
  cpus: Type.Number({ exclusiveMinimum: 0, default: 1 }),
  pidsLimit: Type.Integer({ minimum: 16, default: 512 }),
  tmpBytes: Type.Integer({ minimum: 1024 * 1024, default: 256 * 1024 * 1024, description: 'size of /tmp' }),
};

const BwrapBackendSchema = Type.Object({ type: Type.Literal('bwrap') }, { additionalProperties: false });
const NoneBackendSchema = Type.Object({ type: Type.Literal('none') }, { additionalProperties: false });
const DockerBackendSchema = Type.Object(
  {
    type: Type.Literal('docker'),
    socketPath: Type.String({ default: '/var/run/docker.sock' }),
    ...containerFields,
    pool: Type.Record(ImageKeySchema, Type.Integer({ minimum: 0, maximum: 32 }), {
      default: {},
      description:
        'Image key → how many runtime containers to keep started ahead for new sessions of that image (none by default)',
    }),
  },
  { additionalProperties: false },
);
export type DockerBackendConfig = Static<typeof DockerBackendSchema>;
const KubernetesBackendSchema = Type.Object(
  {
    type: Type.Literal('kubernetes'),
    namespace: Type.String({ default: 'toolgate' }),
    /** Optional RuntimeClass (gVisor, Kata) of every runtime pod. */
    runtimeClassName: Type.Optional(Type.String({ minLength: 1 })),
    /** The workspace: an emptyDir (gone with the pod) or a PersistentVolumeClaim per session. */
    workspace: Type.Union([Type.Literal('emptyDir'), Type.Literal('pvc')], { default: 'pvc' }),
    storageClassName: Type.Optional(Type.String({ minLength: 1 })),
    workspaceBytes: Type.Integer({ minimum: 1024 * 1024, default: 10 * 1024 * 1024 * 1024 }),
    /** Image holding the runtime bundle and a Node.js binary under /toolgate (an init container copies them). */
    runtimeImage: Type.String({ default: 'toolgate:latest' }),
    ...containerFields,
  },
  { additionalProperties: false },
);
export type KubernetesBackendConfig = Static<typeof KubernetesBackendSchema>;
/** As written in the file: every setting but `type` may be left out (the defaults above). */
const fileVariant = <T extends typeof DockerBackendSchema | typeof KubernetesBackendSchema>(schema: T) =>
  Type.Object(
    { ...(Type.Partial(schema) as unknown as TObject).properties, type: schema.properties.type },
    { additionalProperties: false },
  );
/** Where session runtimes run; the `type` says which backend, each with its own settings. */
const RuntimeBackendSchema = Type.Union([
  BwrapBackendSchema,
  NoneBackendSchema,
  fileVariant(DockerBackendSchema),
  fileVariant(KubernetesBackendSchema),
]);
export type ContainerBackendConfig = DockerBackendConfig | KubernetesBackendConfig;

/** Language servers (issue 32): the code tools ask them first, the syntax index answers otherwise. */
const LspSchema = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'Start language servers for the code tools' }),
    idleSeconds: Type.Number({
      exclusiveMinimum: 0,
      default: 600,
      description: "A session's language server unused this long is stopped",
    }),
    startSeconds: Type.Number({
      exclusiveMinimum: 0,
      default: 60,
      description: 'How long a language server may take to initialize before its start counts as failed',
    }),
    budgetMs: Type.Integer({
      minimum: 1,
      default: 2000,
      description: 'How long a code tool waits for a language server before answering from the syntax index',
    }),
    editBudgetMs: Type.Integer({
      minimum: 1,
      default: 2000,
      description: "How long an edit waits for the language server's diagnostics of the changed files",
    }),
  },
  { additionalProperties: false },
);

/**
 * How much one replica takes on (docs/operations.md "Capacity"). 0 for a count means "derived from this
 * machine" (src/ops/capacity-defaults.ts): its memory divided by what a session costs on the backend.
 */
const CapacitySchema = Type.Object(
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

const DiskSchema = Type.Object(
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

const ArchiveSchema = Type.Object(
  {
    maxEntries: Type.Integer({ minimum: 1, default: 50_000, description: 'Entries one archive may have' }),
    maxBytes: Type.Integer({
      minimum: 1024,
      default: 1024 * 1024 * 1024,
      description: 'Bytes of content one archive may extract to',
    }),
    maxRatio: Type.Number({
      minimum: 1,
      default: 200,
      description: 'Extracted bytes per archive byte (zip bombs), checked past ratioFloorBytes',
    }),
    ratioFloorBytes: Type.Integer({
      minimum: 0,
      default: 16 * 1024 * 1024,
      description: 'The ratio is not checked before this many bytes were extracted',
    }),
  },
  { additionalProperties: false },
);

const BlobsSchema = Type.Object(
  {
    ttlSeconds: Type.Integer({
      minimum: 1,
      default: 3600,
      description: 'How long an uploaded blob (POST /v1/blobs) is kept',
    }),
  },
  { additionalProperties: false },
);

/** postgres://… or postgresql://…: the schemes that choose the PostgreSQL driver (src/store/open.ts). */
const POSTGRES_URL = '^postgres(ql)?://';

const DatabaseSchema = Type.Object(
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

const GitSchema = Type.Object(
  {
    allowedHosts: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description:
        'Hosts sessions may be cloned from ("github.com", or "host:port" for one port); "file:///dir" allows local repositories under dir',
    }),
    timeoutSeconds: Type.Integer({
      minimum: 1,
      default: 300,
      description: 'A clone taking longer is stopped',
    }),
  },
  { additionalProperties: false },
);

const NetworkSchema = Type.Object(
  {
    openRanges: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description:
        'CIDR ranges sessions may reach although they are blocked (an internal package mirror); a range opened here is open to every session whose policy allows the destination',
    }),
    hostsFile: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'A hosts file (/etc/hosts format) the egress proxy looks names up in before DNS',
      }),
    ),
    connectTimeoutMs: Type.Integer({ minimum: 100, default: 10_000 }),
    spliceAfterBytes: Type.Integer({
      minimum: 0,
      default: 1024 * 1024,
      description:
        "Bytes a proxied connection moves through the service's own copy before the kernel's splice(2) carries the rest (a python3 with os.splice is needed; 0 = never)",
    }),
  },
  { additionalProperties: false },
);

/**
 * Which Host and Origin headers the service answers (DNS rebinding): besides its own names. A deployment
 * behind a proxy lists the names the proxy forwards (`tools.example.com`) and the browser origins of its
 * pages (`https://tools.example.com`).
 */
const HttpSchema = Type.Object(
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

/** A DNS name of two labels or more, lower case (browsers lower-case host names). */
const PREVIEW_DOMAIN_PATTERN =
  '^(?=.{1,200}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$';

/** Previews of sessions' servers (docs/previews.md): how long the links made for them last, and the host-name form. */
const PreviewSchema = Type.Object(
  {
    linkMinutes: Type.Integer({
      minimum: 1,
      maximum: 10_080,
      default: 60,
      description: 'a link lasts this long unless asked otherwise',
    }),
    maxLinkMinutes: Type.Integer({
      minimum: 1,
      maximum: 10_080,
      default: 1440,
      description: 'the longest a link may be asked to last',
    }),
    domain: Type.Optional(
      Type.String({
        pattern: PREVIEW_DOMAIN_PATTERN,
        description:
          'the host-name form: each exposed port is also served at the root of {port}-{key}.{domain} (e.g. preview.localhost; a wildcard DNS name for this domain must reach the service)',
      }),
    ),
  },
  { additionalProperties: false },
);

const ToolFoldersSchema = Type.Object(
  {
    category: Type.String({
      pattern: '^[a-z][a-z0-9_]{0,63}$',
      default: 'custom',
      description: 'The category of a tool folder whose definition names none (the SynthDev format)',
    }),
  },
  { additionalProperties: false },
);

const AuditSchema = Type.Object(
  { retentionDays: Type.Integer({ minimum: 0, default: 30, description: '0 = keep forever' }) },
  { additionalProperties: false },
);

const PolicySchema = Type.Object(
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

/** Behaviour an operator declares for an MCP server's tool, replacing what its annotations say. */
const McpToolOverrideSchema = Type.Object(
  {
    capabilities: CapabilitiesSchema,
  },
  { additionalProperties: false },
);

/**
 * An MCP server whose tools become toolgate tools: a stdio `command`, started per session inside its
 * runtime, or a Streamable HTTP `url` on a host listed in `mcpAllowedHosts`, shared by all sessions.
 */
const McpServerSchema = Type.Object(
  {
    /** "node" means the Node.js binary the runtime itself runs on. */
    command: Type.Optional(Type.String({ minLength: 1 })),
    url: Type.Optional(Type.String({ pattern: '^https?://' })),
    /** `${WORKSPACE}` in an argument or env value is the workspace directory as the server sees it. */
    args: Type.Array(Type.String(), { default: [] }),
    env: Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.String(), { default: {} }),
    /** Host directories the server needs (its package, its node_modules), shown read-only in the sandbox. */
    readOnlyPaths: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
    tools: Type.Record(Type.String(), McpToolOverrideSchema, { default: {} }),
    callTimeoutMs: Type.Integer({ minimum: 1, maximum: 600_000, default: 60_000 }),
  },
  { additionalProperties: false },
);
export type McpServerConfig = Static<typeof McpServerSchema>;
/** As written in the file: everything but the command may be left out (defaults above). */
const McpServerFileSchema = Type.Partial(McpServerSchema, { additionalProperties: false });

export const ConfigFileSchema = Type.Object(
  {
    profiles: Type.Optional(Type.Record(Type.String({ minLength: 1 }), ProfileSchema)),
    rateLimits: Type.Optional(RateLimitsSchema),
    approval: Type.Optional(Type.Array(Type.String())),
    limits: Type.Optional(Type.Partial(LimitsSchema, { additionalProperties: false })),
    sessions: Type.Optional(Type.Partial(SessionsSchema, { additionalProperties: false })),
    audit: Type.Optional(Type.Partial(AuditSchema, { additionalProperties: false })),
    archive: Type.Optional(Type.Partial(ArchiveSchema, { additionalProperties: false })),
    blobs: Type.Optional(Type.Partial(BlobsSchema, { additionalProperties: false })),
    database: Type.Optional(DatabaseSchema),
    git: Type.Optional(Type.Partial(GitSchema, { additionalProperties: false })),
    network: Type.Optional(Type.Partial(NetworkSchema, { additionalProperties: false })),
    policy: Type.Optional(Type.Partial(PolicySchema, { additionalProperties: false })),
    shutdown: Type.Optional(Type.Partial(ShutdownSchema, { additionalProperties: false })),
    replica: Type.Optional(Type.Partial(ReplicaSchema, { additionalProperties: false })),
    runtime: Type.Optional(Type.Partial(RuntimeSchema, { additionalProperties: false })),
    terminals: Type.Optional(Type.Partial(TerminalsSchema, { additionalProperties: false })),
    kernels: Type.Optional(Type.Partial(KernelsSchema, { additionalProperties: false })),
    runtimeBackend: Type.Optional(RuntimeBackendSchema),
    lsp: Type.Optional(Type.Partial(LspSchema, { additionalProperties: false })),
    disk: Type.Optional(Type.Partial(DiskSchema, { additionalProperties: false })),
    capacity: Type.Optional(Type.Partial(CapacitySchema, { additionalProperties: false })),
    apiKeys: Type.Optional(Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_-]{0,30}$' }), ApiKeySchema)),
    http: Type.Optional(Type.Partial(HttpSchema, { additionalProperties: false })),
    preview: Type.Optional(Type.Partial(PreviewSchema, { additionalProperties: false })),
    toolFolders: Type.Optional(Type.Partial(ToolFoldersSchema, { additionalProperties: false })),
    /** Hosts (name or address, as in the URL) that `url` MCP servers may be on. */
    mcpAllowedHosts: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    mcpServers: Type.Optional(
      Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_]{0,30}$' }), McpServerFileSchema),
    ),
  },
  { additionalProperties: false },
);
export type ConfigFile = Static<typeof ConfigFileSchema>;

export type SandboxMode = 'auto' | 'bwrap' | 'none' | 'docker' | 'kubernetes';
const SANDBOX_MODES: readonly SandboxMode[] = ['auto', 'bwrap', 'none', 'docker', 'kubernetes'];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly apiKey: string | undefined;
  readonly sandbox: SandboxMode;
  /** The docker or kubernetes backend's settings (images, limits), when one of them is the sandbox. */
  readonly containers: ContainerBackendConfig | undefined;
  readonly pluginsDir: string | undefined;
  /** Tool folders (definition.json + an entry program), run inside the session runtime's sandbox. */
  readonly toolsDir: string | undefined;
  readonly toolFolders: Readonly<Static<typeof ToolFoldersSchema>>;
  readonly logLevel: LogLevel;
  /** pretty: readable lines (pino-pretty); json: one JSON object a line; auto: pretty on a terminal. */
  readonly logFormat: 'auto' | 'json' | 'pretty';
  readonly redisUrl: string | undefined;
  /** Where the stores keep their state: url undefined is SQLite in the data dir. */
  readonly database: Readonly<Static<typeof DatabaseSchema>>;
  readonly profiles: Readonly<Record<string, ProfileConfig>>;
  readonly rateLimits: RateLimits;
  readonly approval: readonly string[];
  readonly limits: Readonly<Static<typeof LimitsSchema>>;
  readonly sessions: Readonly<Static<typeof SessionsSchema>>;
  readonly runtime: Readonly<Static<typeof RuntimeSchema>>;
  readonly terminals: Readonly<Static<typeof TerminalsSchema>>;
  readonly kernels: Readonly<Static<typeof KernelsSchema>>;
  /** Language servers for the code tools (TOOLGATE_LSP=off turns them off). */
  readonly lsp: Readonly<Static<typeof LspSchema>>;
  /** MCP servers whose tools are offered as `<server>__<tool>`. */
  readonly mcpServers: Readonly<Record<string, McpServerConfig>>;
  readonly disk: Readonly<Static<typeof DiskSchema>>;
  /** Limits of one replica: sessions, runtimes, host memory and pids (TOOLGATE_MAX_SESSIONS, _RUNTIMES). */
  readonly capacity: Readonly<Static<typeof CapacitySchema>>;
  /** Named API keys with the admin's rights and a session quota each (config file `apiKeys`). */
  readonly apiKeys: Readonly<Record<string, ApiKeyConfig>>;
  /** Host/Origin names accepted besides the service's own (TOOLGATE_ALLOWED_HOSTS / _ORIGINS, `http`). */
  readonly http: Readonly<Static<typeof HttpSchema>>;
  /** Previews of sessions' servers: link lifetimes (which profiles may expose ports: `profiles.*.preview`). */
  readonly preview: Readonly<Static<typeof PreviewSchema>>;
  readonly audit: Readonly<Static<typeof AuditSchema>>;
  readonly archive: Readonly<Static<typeof ArchiveSchema>>;
  readonly blobs: Readonly<Static<typeof BlobsSchema>>;
  readonly git: Readonly<Static<typeof GitSchema>>;
  /** The egress proxy: ranges the operator opened, the hosts file it resolves with. */
  readonly network: Readonly<Static<typeof NetworkSchema>>;
  /** Directory of workspace templates (POST /v1/sessions `template`); undefined: none. */
  readonly templatesDir: string | undefined;
  readonly policy: Readonly<Static<typeof PolicySchema>>;
  readonly shutdown: Readonly<Static<typeof ShutdownSchema>>;
  readonly telemetry: TelemetryConfig;
  /** Set when this process is one of several replicas (TOOLGATE_REPLICA_ID and _URL, or `replica`). */
  readonly replica: Readonly<ReplicaConfig> | undefined;
}

/** OpenTelemetry traces: on when an OTLP endpoint is set, off (and free) otherwise. */
export interface TelemetryConfig {
  /** Full OTLP/HTTP traces URL (…/v1/traces); undefined = tracing off. */
  readonly endpoint: string | undefined;
  readonly serviceName: string;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export const BUILTIN_PROFILES: Record<string, ProfileConfig> = {
  'read-only': { permissions: ['read'] },
  'read-write': { permissions: ['read', 'write'] },
  // The profiles that run commands (and so servers) may expose them; a preview still needs a token or link.
  execute: { permissions: ['read', 'write', 'execute'], preview: { expose: true } },
  full: { permissions: ['read', 'write', 'execute', 'network'], preview: { expose: true } },
};

function parseInteger(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** An on/off environment switch. */
function parseSwitch(name: string, raw: string): boolean {
  if (raw === 'on') return true;
  if (raw === 'off') return false;
  throw new ConfigError(`${name} must be "on" or "off", got "${raw}"`);
}

function readConfigFile(file: string): ConfigFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`TOOLGATE_CONFIG: cannot read ${file}: ${(err as Error).message}`);
  }
  const check = Compile(ConfigFileSchema);
  if (!check.Check(parsed)) {
    const errors = [...check.Errors(parsed)];
    const problems = errors.flatMap((e) => {
      const extra = (e.params as { additionalProperties?: string[] }).additionalProperties;
      const where = e.instancePath || '/';
      if (extra) return [`${where}: unknown key(s) ${extra.map((k) => `"${k}"`).join(', ')}`];
      // `additionalProperties: false` also reports each extra key as "schema is false" at its own path;
      // the line above already names it.
      if (e.keyword === 'boolean') return [];
      return [`${where}: ${e.message}`];
    });
    // One line, so a process supervisor's log shows the whole reason.
    throw new ConfigError(`TOOLGATE_CONFIG ${file} is invalid: ${[...new Set(problems)].join('; ')}`);
  }
  return parsed;
}

/** The preview section: the file's, with TOOLGATE_PREVIEW_DOMAIN over its domain. */
function previewConfig(
  domainEnv: string | undefined,
  file: Partial<Static<typeof PreviewSchema>>,
): Static<typeof PreviewSchema> {
  const domain = domainEnv?.trim().toLowerCase() || undefined;
  if (domain !== undefined && !new RegExp(PREVIEW_DOMAIN_PATTERN).test(domain)) {
    throw new ConfigError(
      `TOOLGATE_PREVIEW_DOMAIN must be a DNS name of two labels or more (e.g. preview.localhost), got "${domainEnv}"`,
    );
  }
  return Value.Default(PreviewSchema, { ...file, ...(domain ? { domain } : {}) }) as Static<
    typeof PreviewSchema
  >;
}

/** Builds the config from an environment (process.env in the server, a plain object in tests). */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const file: ConfigFile = env.TOOLGATE_CONFIG ? readConfigFile(env.TOOLGATE_CONFIG) : {};
  // TOOLGATE_SANDBOX wins over the file's runtimeBackend.type; the file's settings apply when they agree.
  const sandbox = (env.TOOLGATE_SANDBOX || file.runtimeBackend?.type || 'auto') as SandboxMode;
  if (!SANDBOX_MODES.includes(sandbox)) {
    throw new ConfigError(
      `TOOLGATE_SANDBOX must be one of ${SANDBOX_MODES.join(', ')}, got "${env.TOOLGATE_SANDBOX}"`,
    );
  }
  const containers = containerConfig(sandbox, file.runtimeBackend, env.TOOLGATE_RUNTIME_IMAGE || undefined);
  const logLevel = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const logFormat = (env.LOG_FORMAT || 'auto') as Config['logFormat'];
  if (!['auto', 'json', 'pretty'].includes(logFormat)) {
    throw new ConfigError(`LOG_FORMAT must be auto, json or pretty, got "${env.LOG_FORMAT}"`);
  }
  const config: Config = {
    port: parseInteger('PORT', env.PORT, 8080, 0, 65535),
    host: env.HOST || '127.0.0.1',
    dataDir: path.resolve(env.TOOLGATE_DATA_DIR || './data'),
    apiKey: env.TOOLGATE_API_KEY || undefined,
    sandbox,
    containers,
    pluginsDir: env.TOOLGATE_PLUGINS_DIR ? path.resolve(env.TOOLGATE_PLUGINS_DIR) : undefined,
    toolsDir: env.TOOLGATE_TOOLS_DIR ? path.resolve(env.TOOLGATE_TOOLS_DIR) : undefined,
    toolFolders: Value.Default(ToolFoldersSchema, { ...(file.toolFolders ?? {}) }) as Static<
      typeof ToolFoldersSchema
    >,
    logLevel,
    logFormat,
    redisUrl: env.REDIS_URL || undefined,
    database: databaseConfig(env.DATABASE_URL, file.database),
    // The operator may override a built-in profile as well as add new ones.
    profiles: { ...BUILTIN_PROFILES, ...(file.profiles ?? {}) },
    rateLimits: file.rateLimits ?? {},
    approval: file.approval ?? [],
    limits: Value.Default(LimitsSchema, { ...(file.limits ?? {}) }) as Static<typeof LimitsSchema>,
    sessions: Value.Default(SessionsSchema, { ...(file.sessions ?? {}) }) as Static<typeof SessionsSchema>,
    disk: Value.Default(DiskSchema, { ...(file.disk ?? {}) }) as Static<typeof DiskSchema>,
    capacity: Value.Default(CapacitySchema, {
      ...(file.capacity ?? {}),
      ...(env.TOOLGATE_MAX_SESSIONS
        ? { maxSessions: parseInteger('TOOLGATE_MAX_SESSIONS', env.TOOLGATE_MAX_SESSIONS, 0, 0, 1_000_000) }
        : {}),
      ...(env.TOOLGATE_MAX_RUNTIMES
        ? { maxRuntimes: parseInteger('TOOLGATE_MAX_RUNTIMES', env.TOOLGATE_MAX_RUNTIMES, 0, 0, 1_000_000) }
        : {}),
    }) as Static<typeof CapacitySchema>,
    apiKeys: file.apiKeys ?? {},
    http: httpConfig(env, file.http ?? {}),
    preview: previewConfig(env.TOOLGATE_PREVIEW_DOMAIN, file.preview ?? {}),
    runtime: Value.Default(RuntimeSchema, {
      ...(env.TOOLGATE_RUNTIME_IDLE_SECONDS
        ? {
            idleSeconds: parseInteger(
              'TOOLGATE_RUNTIME_IDLE_SECONDS',
              env.TOOLGATE_RUNTIME_IDLE_SECONDS,
              300,
              1,
              86_400,
            ),
          }
        : {}),
      ...(file.runtime ?? {}),
    }) as Static<typeof RuntimeSchema>,
    terminals: Value.Default(TerminalsSchema, { ...(file.terminals ?? {}) }) as Static<
      typeof TerminalsSchema
    >,
    kernels: Value.Default(KernelsSchema, { ...(file.kernels ?? {}) }) as Static<typeof KernelsSchema>,
    lsp: Value.Default(LspSchema, {
      ...(file.lsp ?? {}),
      ...(env.TOOLGATE_LSP ? { enabled: parseSwitch('TOOLGATE_LSP', env.TOOLGATE_LSP) } : {}),
    }) as Static<typeof LspSchema>,
    audit: Value.Default(AuditSchema, { ...(file.audit ?? {}) }) as Static<typeof AuditSchema>,
    archive: Value.Default(ArchiveSchema, { ...(file.archive ?? {}) }) as Static<typeof ArchiveSchema>,
    blobs: Value.Default(BlobsSchema, { ...(file.blobs ?? {}) }) as Static<typeof BlobsSchema>,
    git: Value.Default(GitSchema, { ...(file.git ?? {}) }) as Static<typeof GitSchema>,
    network: networkConfig(file.network ?? {}),
    templatesDir: env.TOOLGATE_TEMPLATES_DIR ? path.resolve(env.TOOLGATE_TEMPLATES_DIR) : undefined,
    policy: Value.Default(PolicySchema, { ...(file.policy ?? {}) }) as Static<typeof PolicySchema>,
    shutdown: Value.Default(ShutdownSchema, { ...(file.shutdown ?? {}) }) as Static<typeof ShutdownSchema>,
    telemetry: telemetryConfig(env),
    replica: replicaConfig(env, file.replica ?? {}),
    mcpServers: Object.fromEntries(
      Object.entries(file.mcpServers ?? {}).map(([name, server]) => [
        name,
        {
          ...(Value.Default(McpServerSchema, { ...server }) as McpServerConfig),
          readOnlyPaths: (server.readOnlyPaths ?? []).map((dir) => path.resolve(dir)),
        },
      ]),
    ),
  };
  checkMcpServers(config.mcpServers, file.mcpAllowedHosts ?? []);
  checkProfileNetworks(config.profiles);
  checkProfileImages(config.profiles, containers);
  return deepFreeze(config);
}

/** The config file's `http`, each list extended by its comma-separated environment variable. */
function httpConfig(
  env: Record<string, string | undefined>,
  file: Partial<Static<typeof HttpSchema>>,
): Static<typeof HttpSchema> {
  const list = (raw: string | undefined) =>
    (raw ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  const origins = list(env.TOOLGATE_ALLOWED_ORIGINS);
  const badOrigin = origins.find((origin) => !/^https?:\/\/[^/]+$/.test(origin));
  if (badOrigin !== undefined) {
    throw new ConfigError(
      `TOOLGATE_ALLOWED_ORIGINS: "${badOrigin}" is not an origin (scheme://host[:port], no path)`,
    );
  }
  return {
    allowedHosts: [...(file.allowedHosts ?? []), ...list(env.TOOLGATE_ALLOWED_HOSTS)].map((host) =>
      host.toLowerCase(),
    ),
    allowedOrigins: [...(file.allowedOrigins ?? []), ...origins].map((origin) => origin.toLowerCase()),
  };
}

/** DATABASE_URL over the file's database.url. The value is never echoed: it may hold a password. */
function databaseConfig(
  fromEnv: string | undefined,
  file: Static<typeof DatabaseSchema> | undefined,
): Static<typeof DatabaseSchema> {
  if (!fromEnv) return { url: file?.url };
  if (!new RegExp(POSTGRES_URL, 'i').test(fromEnv)) {
    throw new ConfigError(
      'DATABASE_URL must be a postgres:// or postgresql:// URL (leave it unset for SQLite in the data dir)',
    );
  }
  return { url: fromEnv };
}

/** The network section with its paths resolved and its ranges checked. */
function networkConfig(section: Partial<Static<typeof NetworkSchema>>): Static<typeof NetworkSchema> {
  const network = Value.Default(NetworkSchema, { ...section }) as Static<typeof NetworkSchema>;
  for (const range of network.openRanges) {
    if (!isCidr(range)) throw new ConfigError(`network.openRanges: "${range}" is not a CIDR range`);
  }
  return network.hostsFile === undefined
    ? network
    : { ...network, hostsFile: path.resolve(network.hostsFile) };
}

/** Every profile's allow-list entries parse (a typo would otherwise silently allow nothing). */
function checkProfileNetworks(profiles: Readonly<Record<string, ProfileConfig>>): void {
  for (const [name, profile] of Object.entries(profiles)) {
    for (const entry of profile.network?.allow ?? []) {
      const parsed = parseAllowEntry(entry);
      if (typeof parsed === 'string') throw new ConfigError(`profiles.${name}.network.allow: ${parsed}`);
    }
  }
}

/** The docker or kubernetes settings: the file's when its type is the chosen backend, else the defaults. */
function containerConfig(
  sandbox: SandboxMode,
  given: Static<typeof RuntimeBackendSchema> | undefined,
  defaultImageRef: string | undefined,
): ContainerBackendConfig | undefined {
  if (sandbox !== 'docker' && sandbox !== 'kubernetes') return undefined;
  const settings = given?.type === sandbox ? given : { type: sandbox };
  const schema = sandbox === 'docker' ? DockerBackendSchema : KubernetesBackendSchema;
  const config = Value.Default(schema, { ...settings }) as ContainerBackendConfig;
  // TOOLGATE_RUNTIME_IMAGE: the image of the default key, without a config file.
  if (defaultImageRef) config.images = { ...config.images, [config.defaultImage]: defaultImageRef };
  if (!(config.defaultImage in config.images)) {
    throw new ConfigError(
      `runtimeBackend.defaultImage: "${config.defaultImage}" is not a key of runtimeBackend.images (${Object.keys(config.images).join(', ')})`,
    );
  }
  const unknownPool =
    config.type === 'docker' && Object.keys(config.pool).find((key) => !(key in config.images));
  if (unknownPool) {
    throw new ConfigError(
      `runtimeBackend.pool: "${unknownPool}" is not a key of runtimeBackend.images (${Object.keys(config.images).join(', ')})`,
    );
  }
  return config;
}

/** A profile's image must be in the table (or no container backend is in use, where it is refused at use). */
function checkProfileImages(
  profiles: Record<string, ProfileConfig>,
  containers: ContainerBackendConfig | undefined,
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

/** Each MCP server has a command or a URL, and a URL only on an allowed host. */
function checkMcpServers(servers: Record<string, McpServerConfig>, allowedHosts: string[]): void {
  for (const [name, server] of Object.entries(servers)) {
    if ((server.command === undefined) === (server.url === undefined)) {
      throw new ConfigError(`mcpServers.${name}: give exactly one of "command" (stdio) or "url"`);
    }
    if (server.url === undefined) continue;
    let host: string;
    try {
      host = new URL(server.url).hostname;
    } catch {
      throw new ConfigError(`mcpServers.${name}.url: not a valid URL`);
    }
    if (!allowedHosts.includes(host)) {
      throw new ConfigError(
        `mcpServers.${name}.url: host ${host} is not in mcpAllowedHosts (${allowedHosts.join(', ') || 'empty'})`,
      );
    }
  }
}

/**
 * The standard OTel variables: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is the traces URL as given;
 * OTEL_EXPORTER_OTLP_ENDPOINT is a base URL to which `v1/traces` is appended; OTEL_SDK_DISABLED=true wins.
 */
function telemetryConfig(env: Record<string, string | undefined>): TelemetryConfig {
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

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** The replica's identity: both id and url (env over file), or neither; lease timing from the file. */
function replicaConfig(
  env: Record<string, string | undefined>,
  file: Partial<ReplicaConfig>,
): ReplicaConfig | undefined {
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
