// shell_close: ends a persistent shell and everything it started.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { DEFAULT_SHELL, ShellNameInput } from '../../jobs/shell-view.js';

export default defineTool({
  name: 'shell_close',
  category: 'execution',
  description: 'Close a persistent shell: kill it and every process it started (background jobs too).',
  capabilities: { executesCommands: true, destructive: true },
  input: Type.Object({ shell: ShellNameInput }, { additionalProperties: false }),
  output: Type.Object({
    shell: Type.String(),
    closed: Type.Boolean({ description: 'false: there was no such shell' }),
  }),
  examples: [{ shell: DEFAULT_SHELL }],
  async execute(input, ctx) {
    const closed = await ctx.services.shells.closeShell(ctx.workspace.runtime, input.shell);
    return { shell: input.shell, closed };
  },
  render: (data) => (data.closed ? `Shell ${data.shell} closed.` : `No shell ${data.shell} was open.`),
});
