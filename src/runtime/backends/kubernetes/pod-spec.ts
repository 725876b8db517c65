// The Kubernetes objects of one session runtime: its pod, its workspace claim and the NetworkPolicy that
// fences runtime pods. Pure (no client), so tests validate them against the Kubernetes schemas. The
// security settings mirror the docker backend's: no service account token, non-root, read-only root,
// all capabilities dropped, RuntimeDefault seccomp, resources from the backend's limits, no pod network
// (a session with the network reaches out through its egress proxy's Unix socket, mounted in).
import { createHash } from 'node:crypto';
import type { KubernetesBackendConfig } from '../../../config.js';
import { KEEP_OUTPUT_BYTES, runtimeEnv, RUNTIME_NODE_FLAGS } from '../env.js';
import { EGRESS_SOCKET_PATH, type RuntimeStart } from '../types.js';

export const POD_WORKSPACE = '/workspace';
const TOOLGATE_DIR = '/toolgate';
export const POD_NODE = `${TOOLGATE_DIR}/node`;
const POD_BUNDLE = `${TOOLGATE_DIR}/runtime.cjs`;
export const RUNTIME_CONTAINER = 'runtime';

export const POD_LABELS = {
  role: 'toolgate.dev/role',
  instance: 'toolgate.dev/instance',
  /** sha256 of the session id (a label value cannot hold every id); the id itself is an annotation. */
  sessionHash: 'toolgate.dev/session-hash',
} as const;
export const SESSION_ANNOTATION = 'toolgate.dev/session';

type Json = Record<string, unknown>;

const hashOf = (sessionId: string) => createHash('sha256').update(sessionId).digest('hex').slice(0, 20);
/** DNS-1123 names: session ids have upper case and underscores, so names carry a hash of them. */
export const podName = (sessionId: string): string => `toolgate-rt-${hashOf(sessionId)}`;
export const claimName = (sessionId: string): string => `toolgate-ws-${hashOf(sessionId)}`;

export function workspaceClaim(config: KubernetesBackendConfig, instance: string, sessionId: string): Json {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: claimName(sessionId),
      namespace: config.namespace,
      labels: {
        [POD_LABELS.role]: 'workspace',
        [POD_LABELS.instance]: instance,
        [POD_LABELS.sessionHash]: hashOf(sessionId),
      },
      annotations: { [SESSION_ANNOTATION]: sessionId },
    },
    spec: {
      accessModes: ['ReadWriteOnce'],
      ...(config.storageClassName ? { storageClassName: config.storageClassName } : {}),
      resources: { requests: { storage: String(config.workspaceBytes) } },
    },
  };
}

export function runtimePod(
  config: KubernetesBackendConfig,
  instance: string,
  request: RuntimeStart,
  name = podName(request.sessionId),
): Json {
  const [uid, gid] = config.user.split(':').map(Number);
  const image = config.images[request.image ?? config.defaultImage];
  if (image === undefined) throw new Error(`unknown runtime image key "${request.image}"`);
  const egress = request.egressSocket !== undefined;
  const env = {
    ...runtimeEnv(
      POD_WORKSPACE,
      '/bin/bash',
      '/usr/bin/prlimit',
      false,
      request.quotaBytes,
      egress ? EGRESS_SOCKET_PATH : undefined,
    ),
    TOOLGATE_RUNTIME_KEEP_OUTPUT_BYTES: String(KEEP_OUTPUT_BYTES),
  };
  const limits = {
    memory: String(config.memoryBytes),
    cpu: String(config.cpus),
    'ephemeral-storage': String(config.tmpBytes * 2),
  };
  const containerSecurity = {
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: config.namespace,
      labels: {
        [POD_LABELS.role]: 'runtime',
        [POD_LABELS.instance]: instance,
        [POD_LABELS.sessionHash]: hashOf(request.sessionId),
      },
      annotations: { [SESSION_ANNOTATION]: request.sessionId },
    },
    spec: {
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      restartPolicy: 'Never',
      ...(config.runtimeClassName ? { runtimeClassName: config.runtimeClassName } : {}),
      securityContext: {
        runAsNonRoot: true,
        runAsUser: uid,
        runAsGroup: gid,
        fsGroup: gid,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      // The runtime's Node binary and bundle come from the toolgate image, copied into an emptyDir: the
      // session's image needs nothing of toolgate (docker mounts the host's instead).
      initContainers: [
        {
          name: 'toolgate',
          image: config.runtimeImage,
          command: [
            '/bin/sh',
            '-c',
            `cp "$(command -v node)" ${POD_NODE} && node --input-type=module -e "const {runtimeBundle} = await import('/app/dist/src/runtime/bundle.js'); (await import('node:fs')).copyFileSync(runtimeBundle(), '${POD_BUNDLE}')"`,
          ],
          securityContext: containerSecurity,
          resources: { limits: { memory: '256Mi', cpu: '500m' } },
          volumeMounts: [
            { name: 'toolgate', mountPath: TOOLGATE_DIR },
            { name: 'tmp', mountPath: '/tmp' },
          ],
        },
      ],
      containers: [
        {
          name: RUNTIME_CONTAINER,
          image,
          command: [POD_NODE, ...RUNTIME_NODE_FLAGS, POD_BUNDLE],
          workingDir: POD_WORKSPACE,
          env: Object.entries(env).map(([key, value]) => ({ name: key, value })),
          // The protocol runs over the attach stream: stdin stays open across attaches, no TTY, no port.
          stdin: true,
          stdinOnce: false,
          tty: false,
          securityContext: containerSecurity,
          resources: { limits, requests: limits },
          volumeMounts: [
            { name: 'workspace', mountPath: POD_WORKSPACE },
            { name: 'toolgate', mountPath: TOOLGATE_DIR, readOnly: true },
            { name: 'tmp', mountPath: '/tmp' },
            ...(egress ? [{ name: 'egress', mountPath: EGRESS_SOCKET_PATH }] : []),
          ],
        },
      ],
      volumes: [
        config.workspace === 'pvc'
          ? { name: 'workspace', persistentVolumeClaim: { claimName: claimName(request.sessionId) } }
          : { name: 'workspace', emptyDir: { sizeLimit: String(config.workspaceBytes) } },
        { name: 'toolgate', emptyDir: { sizeLimit: '256Mi' } },
        { name: 'tmp', emptyDir: { sizeLimit: String(config.tmpBytes) } },
        // The egress proxy's socket, from the node the service runs on (see docs/scaling.md).
        ...(egress ? [{ name: 'egress', hostPath: { path: request.egressSocket, type: 'Socket' } }] : []),
      ],
    },
  };
}

/**
 * Every runtime pod gets no pod traffic in or out: no rule, both directions. A session with the network
 * too: its one way out is the egress proxy's Unix socket (a hostPath mount, not the pod network), so a
 * command that connects directly reaches nothing, and the proxy's policy, blocked ranges, quota and
 * audit cannot be gone around. The service reaches the pod through the API server's attach stream.
 */
export function runtimeNetworkPolicy(namespace: string): Json {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'toolgate-runtime-deny-all', namespace },
    spec: {
      podSelector: { matchLabels: { [POD_LABELS.role]: 'runtime' } },
      policyTypes: ['Ingress', 'Egress'],
    },
  };
}
