// The kubernetes backend (@kubernetes/client-node): a pod per session runtime, from the image the session
// chose, the protocol over the pod's attach stream (no Service, no port), the workspace on a claim per
// session or an emptyDir. Pods outlive the service: a start finds the session's pod and re-attaches; an
// idle stop deletes the pod (its claim stays); the sweep removes pods and claims of sessions that are gone.
// The attach stream is handled by the code the docker backend uses (attached/attached-process.ts).
// Imported only when TOOLGATE_SANDBOX=kubernetes (see runner.ts). NOT YET RUN AGAINST A CLUSTER: only the
// generated objects are checked, against the Kubernetes schemas (see docs/scaling.md).
import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import * as k8s from '@kubernetes/client-node';
import type { KubernetesBackendConfig } from '../../../config.js';
import { attachedBackend, type AttachStream, type AttachTarget } from '../attached/attached-process.js';
import type { RuntimeBackend, RuntimeStart } from '../types.js';
import {
  claimName,
  podName,
  POD_LABELS,
  POD_NODE,
  RUNTIME_CONTAINER,
  runtimeNetworkPolicy,
  runtimePod,
  SESSION_ANNOTATION,
  workspaceClaim,
} from './pod-spec.js';

const POD_START_TIMEOUT_MS = 120_000;
const codeOf = (err: unknown): number | undefined => (err as { code?: number }).code;
const ignoring =
  (...codes: number[]) =>
  (err: unknown) => {
    if (!codes.includes(codeOf(err) ?? 0)) throw err;
  };

export async function createKubernetesBackend(
  config: KubernetesBackendConfig,
  options: { dataDir: string },
): Promise<RuntimeBackend> {
  const kc = new k8s.KubeConfig();
  kc.loadFromDefault();
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const networking = kc.makeApiClient(k8s.NetworkingV1Api);
  const attacher = new k8s.Attach(kc);
  const { namespace } = config;
  // One instance per data dir, as with docker (replicas sharing sessions share a data dir's identity).
  const instance = createHash('sha256').update(options.dataDir).digest('hex').slice(0, 10);
  // Replaced when it exists: an older release's policy fenced only the pods without the network.
  const policy = runtimeNetworkPolicy(namespace) as k8s.V1NetworkPolicy;
  await networking.createNamespacedNetworkPolicy({ namespace, body: policy }).catch(async (err: unknown) => {
    if (codeOf(err) !== 409) throw err;
    await networking.replaceNamespacedNetworkPolicy({
      name: policy.metadata!.name!,
      namespace,
      body: policy,
    });
  });

  const deletePod = (name: string) =>
    core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 }).catch(ignoring(404));

  const target = (request: RuntimeStart): AttachTarget => {
    const name = request.transient
      ? `${podName(request.sessionId)}-once-${Date.now().toString(36)}`
      : podName(request.sessionId);
    return {
      async open() {
        if (request.overlay) throw new Error('the kubernetes backend cannot mount an overlay workspace');
        if (config.workspace === 'pvc') {
          const claim = workspaceClaim(config, instance, request.sessionId);
          await core
            .createNamespacedPersistentVolumeClaim({ namespace, body: claim as k8s.V1PersistentVolumeClaim })
            .catch(ignoring(409));
        }
        const existing = await core.readNamespacedPod({ name, namespace }).catch(ignoring(404));
        const phase = existing?.status?.phase;
        if (phase === 'Succeeded' || phase === 'Failed') await deletePod(name);
        if (!existing || phase === 'Succeeded' || phase === 'Failed') {
          const pod = runtimePod(config, instance, request, name) as k8s.V1Pod;
          await core.createNamespacedPod({ namespace, body: pod }).catch(ignoring(409));
        }
        await waitRunning(core, namespace, name);
        return attach(attacher, namespace, name);
      },
      async stop() {
        await deletePod(name);
      },
    };
  };

  return attachedBackend({
    name: 'kubernetes',
    detail: `kubernetes: a pod per session runtime in namespace ${namespace} (images: ${Object.keys(config.images).join(', ')})`,
    nodePath: POD_NODE,
    images: Object.keys(config.images),
    target,
    async discard(sessionId) {
      await deletePod(podName(sessionId));
      await core
        .deleteNamespacedPersistentVolumeClaim({ name: claimName(sessionId), namespace })
        .catch(ignoring(404));
    },
    async runningSessions() {
      const pods = await core.listNamespacedPod({
        namespace,
        labelSelector: `${POD_LABELS.instance}=${instance},${POD_LABELS.role}=runtime`,
        fieldSelector: 'status.phase=Running',
      });
      return pods.items
        .map((pod) => pod.metadata?.annotations?.[SESSION_ANNOTATION])
        .filter((id): id is string => id !== undefined);
    },
    async sweep(isLive) {
      const selector = `${POD_LABELS.instance}=${instance}`;
      let removed = 0;
      const pods = await core.listNamespacedPod({ namespace, labelSelector: selector });
      for (const pod of pods.items) {
        const sessionId = pod.metadata?.annotations?.[SESSION_ANNOTATION];
        if (sessionId && (await isLive(sessionId))) continue;
        if (pod.metadata?.name) await deletePod(pod.metadata.name);
        removed++;
      }
      const claims = await core.listNamespacedPersistentVolumeClaim({ namespace, labelSelector: selector });
      for (const claim of claims.items) {
        const sessionId = claim.metadata?.annotations?.[SESSION_ANNOTATION];
        if ((sessionId && (await isLive(sessionId))) || !claim.metadata?.name) continue;
        await core
          .deleteNamespacedPersistentVolumeClaim({ name: claim.metadata.name, namespace })
          .catch(ignoring(404));
      }
      return removed;
    },
  });
}

async function waitRunning(core: k8s.CoreV1Api, namespace: string, name: string): Promise<void> {
  const deadline = Date.now() + POD_START_TIMEOUT_MS;
  for (;;) {
    const pod = await core.readNamespacedPod({ name, namespace });
    const phase = pod.status?.phase;
    if (phase === 'Running') return;
    if (phase === 'Succeeded' || phase === 'Failed') throw new Error(`runtime pod ${name} ended (${phase})`);
    if (Date.now() > deadline)
      throw new Error(`runtime pod ${name} not running after ${POD_START_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The pod's attach stream (a WebSocket) as the stream pair the attached process reads and writes. */
async function attach(attacher: k8s.Attach, namespace: string, name: string): Promise<AttachStream> {
  const input = new PassThrough();
  const output = new PassThrough();
  const errors = new PassThrough();
  const socket = await attacher.attach(namespace, name, RUNTIME_CONTAINER, output, errors, input, false);
  const ended = new Promise<void>((resolve) => {
    socket.once('close', () => {
      output.end();
      errors.end();
      resolve();
    });
  });
  return { input, output, errors, ended, close: () => socket.close() };
}
