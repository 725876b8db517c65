// terminal_list: the session's open terminals (they live in its runtime, across calls and re-attaches).
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { TerminalInfoSchema, terminalInfoData } from '../../jobs/terminal-view.js';

export default defineTool({
  name: 'terminal_list',
  category: 'execution',
  description: 'List the open terminals of this session (started with exec_command and still running).',
  capabilities: { executesCommands: true },
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ terminals: Type.Array(TerminalInfoSchema) }),
  examples: [{}],
  async execute(_input, ctx) {
    const { result } = await ctx.workspace.call('terminalList', {});
    return { terminals: result.terminals.map(terminalInfoData) };
  },
  render: (data) =>
    data.terminals.length === 0
      ? 'No open terminals'
      : data.terminals
          .map((t) => `${t.terminalId}  pid ${t.pid}  ${t.rows}x${t.cols}  ${t.command}`)
          .join('\n'),
});
