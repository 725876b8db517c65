// What the shell tools share: the shell name input, a shell as the tools show it, and what a shell is
// opened with (the session's clean environment, the command limits at their longest timeout).
import { Type } from 'typebox';
import { effectiveLimits } from '../runtime/runner/limits.js';
import type { ShellOpenArgs } from '../runtime/ops/shells.js';

export const DEFAULT_SHELL = 'main';

export const ShellNameInput = Type.String({
  pattern: '^[A-Za-z0-9_.-]{1,64}$',
  default: DEFAULT_SHELL,
  description: `Name of the shell ("${DEFAULT_SHELL}" unless you keep several)`,
});

export const ShellView = Type.Object({
  name: Type.String(),
  state: Type.Enum(['idle', 'busy', 'dead']),
  pid: Type.Integer({ description: "bash's process id in the sandbox (0: unknown, the shell is gone)" }),
  cwd: Type.String({ description: 'Working directory after the last command, workspace-relative' }),
  startedAt: Type.Integer({ description: 'Epoch ms' }),
  lastUsedAt: Type.Integer({ description: 'Epoch ms' }),
  commands: Type.Integer({ description: 'Commands run in it' }),
  lastCommand: Type.Optional(Type.String()),
  lastExitCode: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  lastOutput: Type.Optional(Type.String({ description: "The last 2 KB of the last command's output" })),
  deadReason: Type.Optional(Type.String()),
});

/** How a shell starts: the clean command environment, limits as for the longest allowed command. */
export const shellStart = (
  name: string,
  cwd: string,
  env: Readonly<Record<string, string>>,
  maxTimeoutMs: number,
): Omit<ShellOpenArgs, 'maxShells' | 'replace'> => ({
  name,
  cwd,
  env,
  limits: effectiveLimits(maxTimeoutMs),
});
