// terminal_resize: sets a terminal's window size; its program gets SIGWINCH and redraws.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { TerminalIdInput } from '../../jobs/terminal-view.js';

const Input = Type.Object(
  {
    session_id: TerminalIdInput,
    rows: Type.Integer({ minimum: 2, maximum: 500 }),
    cols: Type.Integer({ minimum: 10, maximum: 500 }),
  },
  { additionalProperties: false },
);

export default defineTool({
  name: 'terminal_resize',
  category: 'execution',
  description:
    'Resize a terminal (rows x cols). Its program is told (SIGWINCH) and full-screen programs redraw.',
  capabilities: { executesCommands: true },
  input: Input,
  output: Type.Object({ terminalId: Type.String(), rows: Type.Integer(), cols: Type.Integer() }),
  examples: [{ session_id: 'term_1', rows: 40, cols: 120 }],
  async execute(input, ctx) {
    const { result } = await ctx.workspace.call('terminalResize', {
      id: input.session_id,
      rows: input.rows,
      cols: input.cols,
    });
    return { terminalId: input.session_id, ...result };
  },
  render: (data) => `Terminal ${data.terminalId} is now ${data.rows}x${data.cols}`,
});
