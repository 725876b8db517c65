// The kubernetes backend's config section (`runtimeBackend` with `type: "kubernetes"`): namespace,
// RuntimeClass, the workspace volume, the runtime image, and the shared container settings.
import { Type, type Static } from 'typebox';
import { containerFields } from '../attached/config.js';

export const KubernetesBackendSchema = Type.Object(
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
