// terminal_list: the session's open terminals (they live in its runtime, across calls and re-attaches).
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';

const TerminalInfo = Type.Object({
  terminalId: Type.String(),
  command: Type.String({ description: 'The command (cut to 200 characters)' }),
  pid: Type.Integer(),
  rows: Type.Integer(),
  cols: Type.Integer(),
  startedAt: Type.String(),
  lastUsedAt: Type.String(),
  unreadBytes: Type.Integer({ description: 'Output waiting for the next write_stdin' }),
});

export default defineTool({
  name: 'terminal_list',
  category: 'execution',
  description: 'List the open terminals of this session (started with exec_command and still running).',
  capabilities: { executesCommands: true },
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ terminals: Type.Array(TerminalInfo) }),
  examples: [{}],
  async execute(_input, ctx) {
    const { result } = await ctx.workspace.call('terminalList', {});
    return {
      terminals: result.terminals.map(({ id, command, ...rest }) => ({
        terminalId: id,
        command: command.slice(0, 200),
        ...rest,
      })),
    };
  },
  render: (data) =>
    data.terminals.length === 0
      ? 'No open terminals'
      : data.terminals
          .map((t) => `${t.terminalId}  pid ${t.pid}  ${t.rows}x${t.cols}  ${t.command}`)
          .join('\n'),
});
