// What an operator sees of a session's interactive state (the console's session view): its shells,
// terminals with their rendered screens, and kernels, as shell_list, terminal_list and kernel_list see
// them. Not a tool call: read only while the runtime runs, never starting it, and not counted as the
// session's activity (SessionRuntime.peek), so watching neither keeps a runtime alive nor reads a
// terminal's unread output, which stays for the agent's next write_stdin.
import { Type, type Static } from 'typebox';
import type { SessionRuntime } from '../runtime/session-runtime.js';
import { KernelInfoSchema, kernelInfoData } from './kernel-view.js';
import type { ShellManager } from './shell-manager.js';
import { ShellView } from './shell-view.js';
import { TerminalInfoSchema, terminalInfoData } from './terminal-view.js';

export const TerminalScreenView = Type.Object({
  ...TerminalInfoSchema.properties,
  running: Type.Boolean({ description: 'false: the program exited (no call has read its end yet)' }),
  exitCode: Type.Union([Type.Integer(), Type.Null()]),
  screen: Type.Array(Type.String(), {
    description: 'The visible screen, row by row, trailing blank rows left out',
  }),
  cursor: Type.Optional(Type.Object({ row: Type.Integer(), col: Type.Integer() })),
});

export const InteractiveView = Type.Object({
  runtime: Type.Enum(['running', 'starting', 'stopped'], {
    description:
      'The session runtime, which holds them all: while not running, no shell, terminal or kernel lives',
  }),
  shells: Type.Array(ShellView),
  terminals: Type.Array(TerminalScreenView),
  kernels: Type.Array(KernelInfoSchema),
});
export type InteractiveViewData = Static<typeof InteractiveView>;

/** The view of a session whose runtime handle is `runtime` (undefined: this replica never started one). */
export async function interactiveView(
  runtime: SessionRuntime | undefined,
  shells: ShellManager,
): Promise<InteractiveViewData> {
  if (!runtime) return { runtime: 'stopped', shells: [], terminals: [], kernels: [] };
  const [shellList, terminalList, kernelList] = await Promise.all([
    shells.list(runtime, { look: true }),
    runtime.peek('terminalList', { screens: true }),
    runtime.peek('kernelList', {}),
  ]);
  return {
    runtime: runtime.state,
    shells: shellList,
    terminals: (terminalList?.terminals ?? []).map((info) => ({
      ...terminalInfoData(info),
      running: info.running,
      exitCode: info.exitCode,
      // A runtime of an earlier version (a re-attached container) lists no screens.
      screen: [...(info.screen ?? [])],
      ...(info.cursor ? { cursor: info.cursor } : {}),
    })),
    kernels: (kernelList?.kernels ?? []).map(kernelInfoData),
  };
}
