// kernel_list: the session's kernels (they live in its runtime, across calls and re-attaches).
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { KernelInfoSchema, kernelInfoData } from '../../jobs/kernel-view.js';

export default defineTool({
  name: 'kernel_list',
  category: 'execution',
  description: 'List the kernels of this session (started by run_code), with whether each is running a cell.',
  capabilities: { executesCommands: true },
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ kernels: Type.Array(KernelInfoSchema) }),
  examples: [{}],
  async execute(_input, ctx) {
    const { result } = await ctx.workspace.call('kernelList', {});
    return { kernels: result.kernels.map(kernelInfoData) };
  },
  render: (data) =>
    data.kernels.length === 0
      ? 'No kernels'
      : data.kernels
          .map((k) => `${k.kernel}  ${k.language}  ${k.busy ? 'busy' : 'idle'}  ${k.executions} cells`)
          .join('\n'),
});
