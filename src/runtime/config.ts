// The session runtime's config: when an idle or hung runtime is stopped (`runtime`,
// TOOLGATE_RUNTIME_IDLE_SECONDS), the sessions' CPU weight against the service, and the terminals and code kernels a session keeps in it.
import { Type, type Static } from 'typebox';
import { parseInteger, type Env } from '../config/env.js';
import { withDefaults } from '../config/section.js';

export const RuntimeSchema = Type.Object(
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
    cpuWeight: Type.Integer({
      minimum: 1,
      maximum: 10_000,
      default: 100,
      description:
        "The CPU weight of all session runtimes together against the service's process (cgroup v2's scale: " +
        '100, the default, is an equal share). The sessions share it equally; when the service and they both ' +
        'want the CPU, the service gets its share, however many sessions there are; an idle service takes ' +
        'nothing from them. bwrap and none backends, where a cpu cgroup is writable (docs/runtime.md)',
    }),
  },
  { additionalProperties: false },
);
export type RuntimeConfig = Static<typeof RuntimeSchema>;

/** Terminals (exec_command, write_stdin): PTY programs a session keeps open in its runtime. */
export const TerminalsSchema = Type.Object(
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
export type TerminalsConfig = Static<typeof TerminalsSchema>;

/** Code kernels (run_code): persistent interpreters a session keeps in its runtime. */
export const KernelsSchema = Type.Object(
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
export type KernelsConfig = Static<typeof KernelsSchema>;

/** The file's `runtime` section over TOOLGATE_RUNTIME_IDLE_SECONDS (the file wins, as it always has). */
export function runtimeConfig(env: Env, file: Partial<RuntimeConfig> | undefined): RuntimeConfig {
  const idle = env.TOOLGATE_RUNTIME_IDLE_SECONDS;
  return withDefaults(RuntimeSchema, {
    ...(idle ? { idleSeconds: parseInteger('TOOLGATE_RUNTIME_IDLE_SECONDS', idle, 300, 1, 86_400) } : {}),
    ...file,
  });
}
