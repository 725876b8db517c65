// What the container backends (docker, kubernetes: runtimes reached over an attach stream) share in their
// config sections: the image table and the limits of one runtime container or pod.
import { Type } from 'typebox';

/** Image keys: what a profile or a session names (`image: "python"`); the operator maps them to images. */
export const ImageKeySchema = Type.String({ pattern: '^[a-z][a-z0-9_-]{0,30}$' });

/** The settings every container backend has, spread into each backend's schema. */
export const containerFields = {
  images: Type.Record(ImageKeySchema, Type.String({ minLength: 1 }), {
    // A key the pattern refuses could never be named by a session: refused here, by name.
    additionalProperties: false,
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
