// The docker backend's config section (`runtimeBackend` with `type: "docker"`): the engine's socket, the
// shared container settings and the pool of containers started ahead.
import { Type, type Static } from 'typebox';
import { ConfigError } from '../../../config/error.js';
import { containerFields, ImageKeySchema } from '../attached/config.js';

export const DockerBackendSchema = Type.Object(
  {
    type: Type.Literal('docker'),
    socketPath: Type.String({ default: '/var/run/docker.sock' }),
    ...containerFields,
    cpuWeight: Type.Integer({
      minimum: 1,
      maximum: 10_000,
      default: 10,
      description:
        "Each session container's CPU weight (cgroup v2's scale, 100: a default container; docker's CpuShares " +
        'is weight × 10.24). Low: a toolgate service that runs in a container of its own (compose) gets the ' +
        'CPU first when both want it; an idle service takes nothing from the sessions',
    }),
    pool: Type.Record(ImageKeySchema, Type.Integer({ minimum: 0, maximum: 32 }), {
      additionalProperties: false,
      default: {},
      description:
        'Image key → how many runtime containers to keep started ahead for new sessions of that image (none by default)',
    }),
  },
  { additionalProperties: false },
);
export type DockerBackendConfig = Static<typeof DockerBackendSchema>;

/** Every pool key is an image key (a typo would otherwise keep nothing warm). */
export function checkDockerPool(config: DockerBackendConfig): void {
  const unknownPool = Object.keys(config.pool).find((key) => !(key in config.images));
  if (unknownPool) {
    throw new ConfigError(
      `runtimeBackend.pool: "${unknownPool}" is not a key of runtimeBackend.images (${Object.keys(config.images).join(', ')})`,
    );
  }
}
