// kernel_close: shuts a kernel down and frees its memory.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { KernelNameInput } from '../../jobs/kernel-view.js';

export default defineTool({
  name: 'kernel_close',
  category: 'execution',
  description: 'Shut a kernel down (its variables are gone); run_code with its name starts a new one.',
  capabilities: { executesCommands: true, destructive: true },
  input: Type.Object({ kernel: KernelNameInput }, { additionalProperties: false }),
  output: Type.Object({ kernel: Type.String() }),
  examples: [{ kernel: 'default' }],
  async execute(input, ctx) {
    const { result } = await ctx.workspace.call('kernelClose', { name: input.kernel });
    return { kernel: result.name };
  },
  render: (data) => `Closed kernel ${data.kernel}`,
});
