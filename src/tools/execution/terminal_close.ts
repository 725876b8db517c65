// terminal_close: hangs up a terminal; its program and everything it started end.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { TerminalIdInput } from '../../jobs/terminal-view.js';

export default defineTool({
  name: 'terminal_close',
  category: 'execution',
  description: 'Close a terminal: its program gets SIGHUP, then SIGKILL, with everything it started.',
  capabilities: { executesCommands: true, destructive: true },
  input: Type.Object({ session_id: TerminalIdInput }, { additionalProperties: false }),
  output: Type.Object({ terminalId: Type.String(), exitCode: Type.Union([Type.Integer(), Type.Null()]) }),
  examples: [{ session_id: 'term_1' }],
  async execute(input, ctx) {
    const { result } = await ctx.workspace.call('terminalClose', { id: input.session_id });
    return { terminalId: result.id, exitCode: result.exitCode };
  },
  render: (data) => `Closed terminal ${data.terminalId} (exit code ${data.exitCode ?? 'none'})`,
});
