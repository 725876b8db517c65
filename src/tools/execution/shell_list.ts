// shell_list: the session's persistent shells, with their state, cwd and last command.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { ShellView } from '../../jobs/shell-view.js';

export default defineTool({
  name: 'shell_list',
  category: 'execution',
  description:
    "List this session's persistent shells: name, state (idle, busy, dead and why), cwd, the last " +
    'command with its exit code and the end of its output.',
  capabilities: { readsFiles: true },
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ shells: Type.Array(ShellView) }),
  examples: [{}],
  async execute(_input, ctx) {
    return { shells: await ctx.services.shells.list(ctx.workspace.runtime) };
  },
  render: (data) =>
    data.shells.length === 0
      ? 'No shells are open.'
      : data.shells
          .map(
            (shell) =>
              `${shell.name}: ${shell.state}${shell.deadReason ? ` (${shell.deadReason})` : ''}, cwd ${shell.cwd}` +
              (shell.lastCommand !== undefined
                ? `, last: ${shell.lastCommand.slice(0, 80)} → ${shell.lastExitCode ?? '-'}`
                : ''),
          )
          .join('\n'),
});
