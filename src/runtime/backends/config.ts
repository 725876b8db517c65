// The runtime backend's config: TOOLGATE_SANDBOX and the file's `runtimeBackend` (one variant per backend,
// marked by its `type`), and for docker or kubernetes their settings with TOOLGATE_RUNTIME_IMAGE applied.
import { Type, type TObject } from 'typebox';
import { Value } from 'typebox/value';
import type { Env } from '../../config/env.js';
import { ConfigError } from '../../config/error.js';
import { checkDockerPool, DockerBackendSchema, type DockerBackendConfig } from './docker/config.js';
import { KubernetesBackendSchema, type KubernetesBackendConfig } from './kubernetes/config.js';

export type SandboxMode = 'auto' | 'bwrap' | 'none' | 'docker' | 'kubernetes';
const SANDBOX_MODES: readonly SandboxMode[] = ['auto', 'bwrap', 'none', 'docker', 'kubernetes'];
export type ContainerBackendConfig = DockerBackendConfig | KubernetesBackendConfig;

const BwrapBackendSchema = Type.Object({ type: Type.Literal('bwrap') }, { additionalProperties: false });
const NoneBackendSchema = Type.Object({ type: Type.Literal('none') }, { additionalProperties: false });
/** As written in the file: every setting but `type` may be left out (the defaults above). */
const fileVariant = <T extends typeof DockerBackendSchema | typeof KubernetesBackendSchema>(schema: T) =>
  Type.Object(
    { ...(Type.Partial(schema) as unknown as TObject).properties, type: schema.properties.type },
    { additionalProperties: false },
  );
/** Where session runtimes run; the `type` says which backend, each with its own settings. */
export const RuntimeBackendSchema = Type.Union([
  BwrapBackendSchema,
  NoneBackendSchema,
  fileVariant(DockerBackendSchema),
  fileVariant(KubernetesBackendSchema),
]);

/** TOOLGATE_SANDBOX wins over the file's runtimeBackend.type; the file's settings apply when they agree. */
export function sandboxMode(env: Env, fileType: string | undefined): SandboxMode {
  const sandbox = (env.TOOLGATE_SANDBOX || fileType || 'auto') as SandboxMode;
  if (!SANDBOX_MODES.includes(sandbox)) {
    throw new ConfigError(
      `TOOLGATE_SANDBOX must be one of ${SANDBOX_MODES.join(', ')}, got "${env.TOOLGATE_SANDBOX}"`,
    );
  }
  return sandbox;
}

/** The docker or kubernetes settings: the file's when its type is the chosen backend, else the defaults. */
export function containerConfig(
  sandbox: SandboxMode,
  given: { type: string } | undefined,
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
  if (config.type === 'docker') checkDockerPool(config);
  return config;
}
