// The Docker Engine API's create body for one session runtime container, and the labels that find it
// again: pure (no Docker client), so tests can read every security setting without an engine.
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { DockerBackendConfig } from '../../../config.js';
import { ingressEnv, KEEP_OUTPUT_BYTES, runtimeEnv, RUNTIME_NODE_FLAGS } from '../env.js';
import { EGRESS_SOCKET_PATH, SANDBOX_INGRESS_DIR, type RuntimeStart } from '../types.js';

export const CONTAINER_WORKSPACE = '/workspace';
export const CONTAINER_NODE = '/toolgate/node';
export const CONTAINER_BUNDLE = '/toolgate/runtime.cjs';
/** Every image of the table has these (docker/runtime-images/base). */
const SHELL = '/bin/bash';
const PRLIMIT = '/usr/bin/prlimit';

export const LABELS = {
  /** The session whose runtime this is. */
  session: 'org.toolgate.session',
  /** Which toolgate (by data dir) made it: a sweep touches only its own instance's containers. */
  instance: 'org.toolgate.instance',
  /** Everything the container was made from, hashed: a container made otherwise is replaced. */
  spec: 'org.toolgate.spec',
  /** A one-shot runtime (never re-attached). */
  transient: 'org.toolgate.transient',
  /**
   * A container made for the pool (pool.ts), before it had a session: the value is its poolKey. It has
   * no session label (labels cannot change); once a session takes it, it is renamed to that session's
   * containerName, and the name says whose it is.
   */
  pool: 'org.toolgate.pool',
} as const;

/** What the backend knows besides the request: where its bundle and node binary are on the host. */
export interface ContainerHost {
  readonly instance: string;
  readonly bundle: string;
  readonly nodeBinary: string;
}

/** The subset of Docker's ContainerCreateOptions this backend sets (dockerode's type, kept structural). */
export interface ContainerSpec {
  name: string;
  Image: string;
  Cmd: string[];
  Env: string[];
  User: string;
  WorkingDir: string;
  Labels: Record<string, string>;
  AttachStdin: boolean;
  AttachStdout: boolean;
  AttachStderr: boolean;
  OpenStdin: boolean;
  StdinOnce: boolean;
  Tty: boolean;
  NetworkDisabled: boolean;
  HostConfig: {
    Binds: string[];
    NetworkMode: string;
    ReadonlyRootfs: boolean;
    Tmpfs: Record<string, string>;
    CapDrop: string[];
    SecurityOpt: string[];
    Init: boolean;
    Memory: number;
    MemorySwap: number;
    NanoCpus: number;
    CpuShares: number;
    PidsLimit: number;
    AutoRemove: boolean;
    RestartPolicy: { Name: string };
    LogConfig: { Type: string; Config: Record<string, string> };
  };
}

export const containerName = (instance: string, sessionId: string): string =>
  `toolgate-${instance}-${sessionId}`;

const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The session a container's name says it belongs to (a pooled one taken by a session); else undefined. */
export function sessionOfName(instance: string, name: string | undefined): string | undefined {
  const prefix = `toolgate-${instance}-`;
  const bare = name?.replace(/^\//, '');
  if (!bare?.startsWith(prefix)) return undefined;
  const rest = bare.slice(prefix.length);
  return SESSION_ID.test(rest) ? rest : undefined;
}

/** The image reference of the request's key (the default key when it names none). */
export function imageFor(config: DockerBackendConfig, key: string | undefined): string {
  const image = config.images[key ?? config.defaultImage];
  if (image === undefined) throw new Error(`unknown runtime image key "${key}"`);
  return image;
}

export function containerSpec(
  config: DockerBackendConfig,
  host: ContainerHost,
  request: RuntimeStart,
  name: string,
): ContainerSpec {
  // No network unless the session has it and the caller supplied its egress proxy's socket: then the
  // socket is the only way out (the egress policy and its audit live behind it), still no interface.
  const egress = request.egressSocket;
  const binds = [
    `${request.workspaceRoot}:${CONTAINER_WORKSPACE}:rw`,
    `${host.bundle}:${CONTAINER_BUNDLE}:ro`,
    `${host.nodeBinary}:${CONTAINER_NODE}:ro`,
    // Tool folders and MCP server packages, at their host paths as with bwrap.
    ...request.readOnlyPaths.map((dir) => `${dir}:${dir}:ro`),
    // The socket's directory, not the socket: a restarted service makes the socket again in it, and a
    // container that outlived the service sees the new one (a bind of the file would keep the old).
    ...(egress ? [`${path.dirname(egress)}:${path.posix.dirname(EGRESS_SOCKET_PATH)}:rw`] : []),
    // Previews: the directory of the service's ingress socket (one for all sessions; a connection is
    // claimed by its one-time ticket), read-only: the runtime only dials it.
    ...(request.ingressDir ? [`${request.ingressDir}:${SANDBOX_INGRESS_DIR}:ro`] : []),
  ];
  const egressInside = egress
    ? path.posix.join(path.posix.dirname(EGRESS_SOCKET_PATH), path.basename(egress))
    : undefined;
  const env = {
    ...runtimeEnv(CONTAINER_WORKSPACE, SHELL, PRLIMIT, false, request.quotaBytes, egressInside),
    ...ingressEnv(request.ingressDir && SANDBOX_INGRESS_DIR),
    TOOLGATE_RUNTIME_KEEP_OUTPUT_BYTES: String(KEEP_OUTPUT_BYTES),
  };
  const spec: ContainerSpec = {
    name,
    Image: imageFor(config, request.image),
    Cmd: [CONTAINER_NODE, ...RUNTIME_NODE_FLAGS, CONTAINER_BUNDLE],
    Env: Object.entries(env).map(([key, value]) => `${key}=${value}`),
    User: config.user,
    WorkingDir: CONTAINER_WORKSPACE,
    Labels: {
      [LABELS.session]: request.sessionId,
      [LABELS.instance]: host.instance,
      ...(request.transient ? { [LABELS.transient]: '1' } : {}),
    },
    // The protocol runs over the attached stdio: stdin stays open across attaches (StdinOnce false),
    // no TTY (stdout and stderr stay apart), no port, no network.
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    OpenStdin: true,
    StdinOnce: false,
    Tty: false,
    NetworkDisabled: true,
    HostConfig: {
      Binds: binds,
      NetworkMode: 'none',
      ReadonlyRootfs: true,
      Tmpfs: { '/tmp': `rw,nosuid,nodev,size=${config.tmpBytes}` },
      CapDrop: ['ALL'],
      // Docker's default seccomp profile applies (nothing here replaces it); no setuid gains.
      SecurityOpt: ['no-new-privileges:true'],
      Init: true,
      Memory: config.memoryBytes,
      MemorySwap: config.memoryBytes,
      NanoCpus: Math.round(config.cpus * 1e9),
      CpuShares: Math.max(2, Math.round((config.cpuWeight * 1024) / 100)),
      PidsLimit: config.pidsLimit,
      AutoRemove: request.transient === true,
      RestartPolicy: { Name: 'no' },
      // The stdio is the protocol: nothing of it is worth logging (file contents pass through it).
      LogConfig: { Type: 'none', Config: {} },
    },
  };
  spec.Labels[LABELS.spec] = createHash('sha256').update(JSON.stringify(spec)).digest('hex').slice(0, 16);
  return spec;
}

/**
 * Everything a session's container is made from except the session and its workspace directory: a pooled
 * container made with the same key can serve the request (same image, limits, bundle, read-only paths).
 */
export function poolKey(config: DockerBackendConfig, host: ContainerHost, request: RuntimeStart): string {
  const neutral = { ...request, sessionId: 'pool', workspaceRoot: '/pool', transient: false };
  return containerSpec(config, host, neutral, 'pool').Labels[LABELS.spec];
}

/** The create body of a pooled container: a session's, without the session label, with the pool's. */
export function pooledSpec(
  config: DockerBackendConfig,
  host: ContainerHost,
  request: RuntimeStart,
  name: string,
): ContainerSpec {
  const spec = containerSpec(config, host, request, name);
  const key = poolKey(config, host, request);
  const labels: Record<string, string> = { ...spec.Labels, [LABELS.pool]: key, [LABELS.spec]: key };
  delete labels[LABELS.session];
  return { ...spec, Labels: labels };
}
