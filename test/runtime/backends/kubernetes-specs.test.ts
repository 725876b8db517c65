// The kubernetes backend's objects without a cluster (there is none here): every generated pod, claim and
// NetworkPolicy, and every manifest in deploy/kubernetes/, validated against the Kubernetes schemas
// (kubernetes-models, generated from the Kubernetes OpenAPI), with the security settings checked by name.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAllYaml } from '@kubernetes/client-node';
import { ConfigMap, PersistentVolumeClaim, Pod, Service, ServiceAccount } from 'kubernetes-models/v1';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { Role, RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import { loadConfig, type KubernetesBackendConfig } from '../../../src/config.js';
import {
  runtimeNetworkPolicy,
  runtimePod,
  workspaceClaim,
  POD_LABELS,
} from '../../../src/runtime/backends/kubernetes/pod-spec.js';
import type { RuntimeStart } from '../../../src/runtime/backends/types.js';
import { writeConfigFile } from '../../ops/with-config.js';

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  Pod,
  PersistentVolumeClaim,
  ConfigMap,
  Service,
  ServiceAccount,
  Deployment,
  StatefulSet,
  NetworkPolicy,
  PodDisruptionBudget,
  Role,
  RoleBinding,
};

/** Throws with the schema's message when `object` is not a valid object of its kind. */
const validate = (object: Record<string, unknown>) => {
  const Model = MODELS[object.kind as string];
  if (!Model) throw new Error(`no schema for kind ${String(object.kind)}`);
  new Model(object as never).validate();
};

const backendConfig = (settings: object = {}): KubernetesBackendConfig =>
  loadConfig({
    TOOLGATE_SANDBOX: 'kubernetes',
    TOOLGATE_CONFIG: writeConfigFile({
      runtimeBackend: {
        type: 'kubernetes',
        images: { base: 'toolgate/runtime-base:1', python: 'toolgate/runtime-python:1' },
        ...settings,
      },
    }),
  }).containers as KubernetesBackendConfig;

const request = (extra: Partial<RuntimeStart> = {}): RuntimeStart => ({
  sessionId: 'ses_AbC_12-x',
  workspaceRoot: '/unused',
  quotaBytes: 0,
  readOnlyPaths: [],
  ...extra,
});

type PodObject = {
  metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> };
  spec: {
    automountServiceAccountToken: boolean;
    runtimeClassName?: string;
    securityContext: { runAsNonRoot: boolean; seccompProfile: { type: string } };
    containers: Array<{
      image: string;
      stdin: boolean;
      tty: boolean;
      ports?: unknown;
      securityContext: Record<string, unknown>;
      resources: { limits: Record<string, string> };
    }>;
    volumes: Array<{ name: string; persistentVolumeClaim?: unknown; emptyDir?: unknown }>;
  };
};

describe('kubernetes runtime pods', () => {
  it('are valid pods with the security settings of the issue, in the image the session chose', () => {
    const config = backendConfig({ runtimeClassName: 'gvisor', memoryBytes: 512 * 1024 * 1024, cpus: 0.5 });
    const pod = runtimePod(config, 'inst01', request({ image: 'python' })) as PodObject;
    validate(pod);
    expect(pod.metadata.name).toMatch(/^[a-z0-9-]+$/);
    expect(pod.metadata.annotations['toolgate.dev/session']).toBe('ses_AbC_12-x');
    expect(pod.spec.automountServiceAccountToken).toBe(false);
    expect(pod.spec.runtimeClassName).toBe('gvisor');
    expect(pod.spec.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    const [runtime] = pod.spec.containers;
    expect(runtime.image).toBe('toolgate/runtime-python:1');
    expect(runtime.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(runtime.resources.limits).toMatchObject({ memory: String(512 * 1024 * 1024), cpu: '0.5' });
    // The protocol runs over the attach stream: stdin open, no TTY, no port.
    expect(runtime).toMatchObject({ stdin: true, tty: false });
    expect(runtime.ports).toBeUndefined();
    expect(pod.spec.volumes.find((v) => v.name === 'workspace')?.persistentVolumeClaim).toBeDefined();
  });

  it('are valid with an emptyDir workspace and with the egress socket of a network session', () => {
    const pod = runtimePod(
      backendConfig({ workspace: 'emptyDir' }),
      'inst01',
      request({ egressSocket: '/run/toolgate/egress/ses.sock' }),
    ) as PodObject;
    validate(pod);
    expect(pod.spec.volumes.find((v) => v.name === 'workspace')?.emptyDir).toBeDefined();
  });

  it('every runtime pod, with the network or without, gets no pod traffic at all: its socket is the way out', () => {
    // A pod the deny-all policy does not select keeps the pod network, and a command in it connects
    // directly: around the proxy, the blocked ranges, the quota and the audit.
    const selects = (policy: Record<string, unknown>, labels: Record<string, string>) => {
      const wanted = (policy.spec as { podSelector: { matchLabels: Record<string, string> } }).podSelector
        .matchLabels;
      return Object.entries(wanted).every(([key, value]) => labels[key] === value);
    };
    const policy = runtimeNetworkPolicy('toolgate');
    for (const start of [request(), request({ egressSocket: '/run/toolgate/egress/ses.sock' })]) {
      const pod = runtimePod(backendConfig(), 'inst01', start) as PodObject;
      expect(selects(policy, pod.metadata.labels), JSON.stringify(pod.metadata.labels)).toBe(true);
    }
    // Both directions, and no rule that lets anything through.
    expect(policy.spec).toEqual({
      podSelector: { matchLabels: { [POD_LABELS.role]: 'runtime' } },
      policyTypes: ['Ingress', 'Egress'],
    });
    // A pod of another role (the service itself) is not fenced by it.
    expect(selects(policy, { [POD_LABELS.role]: 'service' })).toBe(false);
  });

  it('claims and the deny-all NetworkPolicy are valid', () => {
    validate(workspaceClaim(backendConfig({ storageClassName: 'fast' }), 'inst01', 'ses_1'));
    const policy = runtimeNetworkPolicy('toolgate');
    validate(policy);
    expect(policy.spec).toMatchObject({ policyTypes: ['Ingress', 'Egress'] });
    expect((policy.spec as { egress?: unknown }).egress).toBeUndefined();
  });

  it('the validation refuses a broken pod (so the checks above can fail)', () => {
    const pod = runtimePod(backendConfig(), 'inst01', request()) as { spec: Record<string, unknown> };
    pod.spec.restartPolicy = 'Sometimes';
    expect(() => validate(pod)).toThrow(/restartPolicy/);
  });
});

describe('deploy/kubernetes manifests', () => {
  const dir = path.resolve('deploy/kubernetes');
  const objects = readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .flatMap((name) => loadAllYaml(readFileSync(path.join(dir, name), 'utf8')) as Record<string, unknown>[]);

  it('are valid objects of their kinds, covering what the issue lists', () => {
    for (const object of objects) validate(object);
    expect(new Set(objects.map((o) => o.kind))).toEqual(
      new Set([
        'ServiceAccount',
        'Role',
        'RoleBinding',
        'ConfigMap',
        'PersistentVolumeClaim',
        'Deployment',
        'Service',
        'PodDisruptionBudget',
        'NetworkPolicy',
      ]),
    );
  });

  it('let the service make, attach to and remove runtime pods, and its config loads', () => {
    const role = objects.find((o) => o.kind === 'Role') as {
      rules: { resources: string[]; verbs: string[] }[];
    };
    const allowed = (resource: string, verb: string) =>
      role.rules.some((rule) => rule.resources.includes(resource) && rule.verbs.includes(verb));
    for (const [resource, verb] of [
      ['pods', 'create'],
      ['pods', 'delete'],
      ['pods/attach', 'create'],
      ['pods/exec', 'create'],
      ['persistentvolumeclaims', 'create'],
    ])
      expect(allowed(resource, verb), `${verb} ${resource}`).toBe(true);
    const configMap = objects.find((o) => o.kind === 'ConfigMap') as { data: Record<string, string> };
    const config = loadConfig({
      TOOLGATE_CONFIG: writeConfigFile(JSON.parse(configMap.data['config.json'])),
    });
    expect(config.sandbox).toBe('kubernetes');
    expect(Object.keys(config.containers!.images)).toEqual(['base', 'python', 'node']);
    // The manifest's policy is the one the backend makes.
    const policy = objects.find((o) => o.kind === 'NetworkPolicy');
    expect(policy).toEqual(runtimeNetworkPolicy('toolgate'));
  });
});

describe('deploy/kubernetes/replicas manifests', () => {
  const dir = path.resolve('deploy/kubernetes/replicas');
  const objects = readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .flatMap((name) => loadAllYaml(readFileSync(path.join(dir, name), 'utf8')) as Record<string, unknown>[]);
  type Env = { name: string; value?: string; valueFrom?: Record<string, Record<string, string>> };

  it('run several replicas with stable ids on PostgreSQL over one shared data claim, each reachable at its pod IP', () => {
    for (const object of objects) validate(object);
    // A StatefulSet: a replica's id (its pod name) stays when the pod is replaced, so the replica that
    // starts again replays the crash journal of the one that was killed.
    const deployment = objects.find((o) => o.kind === 'StatefulSet') as {
      spec: {
        replicas: number;
        updateStrategy: { type: string };
        template: {
          spec: {
            containers: { env: Env[] }[];
            volumes: { name: string; persistentVolumeClaim?: { claimName: string } }[];
          };
        };
      };
    };
    expect(deployment.spec.replicas).toBeGreaterThan(1);
    expect(deployment.spec.updateStrategy.type).toBe('RollingUpdate');
    const env = new Map(deployment.spec.template.spec.containers[0].env.map((e) => [e.name, e]));
    expect(env.get('DATABASE_URL')?.valueFrom?.secretKeyRef.name).toBe('toolgate-database');
    expect(env.get('TOOLGATE_REPLICA_ID')?.valueFrom?.fieldRef.fieldPath).toBe('metadata.name');
    expect(env.get('POD_IP')?.valueFrom?.fieldRef.fieldPath).toBe('status.podIP');
    const claim = objects.find((o) => o.kind === 'PersistentVolumeClaim') as {
      metadata: { name: string };
      spec: { accessModes: string[] };
    };
    expect(claim.spec.accessModes).toEqual(['ReadWriteMany']);
    const data = deployment.spec.template.spec.volumes.find((v) => v.name === 'data');
    expect(data?.persistentVolumeClaim?.claimName).toBe(claim.metadata.name);
    // What a pod's environment becomes (Kubernetes expands $(POD_IP)) is a config the service accepts.
    const config = loadConfig({
      DATABASE_URL: 'postgres://toolgate@db.toolgate.svc:5432/toolgate',
      TOOLGATE_REPLICA_ID: 'toolgate-7d9f-abcde',
      TOOLGATE_REPLICA_URL: env.get('TOOLGATE_REPLICA_URL')!.value!.replace('$(POD_IP)', '10.1.2.3'),
    });
    expect(config.replica).toMatchObject({ id: 'toolgate-7d9f-abcde', url: 'http://10.1.2.3:8080' });
    expect(config.database.url).toMatch(/^postgres:/);
  });
});
