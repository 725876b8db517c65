// Resource limits for sandboxed commands: the server's ceilings, the input schema that lets a caller
// lower them for one command, and the prlimit arguments that apply them.
import { Type, type Static } from 'typebox';
import type { ResourceLimits } from './types.js';

const MiB = 1024 * 1024;

/** The most a command may get; callers may only ask for less. */
export const LIMIT_CEILINGS = {
  cpuSeconds: 600,
  memoryMb: 2048,
  maxProcesses: 256,
  fileSizeMb: 1024,
  openFiles: 1024,
} as const;

export const LimitsInput = Type.Object(
  {
    cpu_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: LIMIT_CEILINGS.cpuSeconds,
        description: 'CPU seconds per process (default: the timeout in seconds)',
      }),
    ),
    memory_mb: Type.Optional(
      Type.Integer({
        minimum: 16,
        maximum: LIMIT_CEILINGS.memoryMb,
        description: `Address space per process in MiB (default ${LIMIT_CEILINGS.memoryMb})`,
      }),
    ),
    max_processes: Type.Optional(
      Type.Integer({
        minimum: 2,
        maximum: LIMIT_CEILINGS.maxProcesses,
        description: `Processes the command may have at once (default ${LIMIT_CEILINGS.maxProcesses})`,
      }),
    ),
    file_size_mb: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: LIMIT_CEILINGS.fileSizeMb,
        description: `Largest file the command may write, in MiB (default ${LIMIT_CEILINGS.fileSizeMb})`,
      }),
    ),
    open_files: Type.Optional(
      Type.Integer({
        minimum: 16,
        maximum: LIMIT_CEILINGS.openFiles,
        description: `Open files per process (default ${LIMIT_CEILINGS.openFiles})`,
      }),
    ),
  },
  { additionalProperties: false, description: 'Lower the resource limits for this command' },
);
export type LimitsRequest = Static<typeof LimitsInput>;

export function effectiveLimits(timeoutMs: number, requested: LimitsRequest = {}): ResourceLimits {
  const timeoutSeconds = Math.min(LIMIT_CEILINGS.cpuSeconds, Math.max(1, Math.ceil(timeoutMs / 1000)));
  return {
    cpuSeconds: requested.cpu_seconds ?? timeoutSeconds,
    memoryBytes: (requested.memory_mb ?? LIMIT_CEILINGS.memoryMb) * MiB,
    maxProcesses: requested.max_processes ?? LIMIT_CEILINGS.maxProcesses,
    fileSizeBytes: (requested.file_size_mb ?? LIMIT_CEILINGS.fileSizeMb) * MiB,
    openFiles: requested.open_files ?? LIMIT_CEILINGS.openFiles,
  };
}
