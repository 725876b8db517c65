// The tool contract's config: the limits every tool call runs under (`limits`) and the directory of
// plugin tool modules (TOOLGATE_PLUGINS_DIR).
import { Type, type Static } from 'typebox';
import { resolvedPath, type Env } from '../config/env.js';
import { withDefaults } from '../config/section.js';

export const LimitsSchema = Type.Object(
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
export type LimitsConfig = Static<typeof LimitsSchema>;

/** The file's limits with their defaults, and TOOLGATE_PLUGINS_DIR. */
export function contractConfig(env: Env, limits: Partial<LimitsConfig> | undefined) {
  return { limits: withDefaults(LimitsSchema, limits), pluginsDir: resolvedPath(env.TOOLGATE_PLUGINS_DIR) };
}
