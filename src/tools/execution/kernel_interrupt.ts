// kernel_interrupt: stops the cell a kernel is running (KeyboardInterrupt); the kernel and its state stay.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { KernelNameInput } from '../../jobs/kernel-view.js';

export default defineTool({
  name: 'kernel_interrupt',
  category: 'execution',
  description:
    'Interrupt the cell a kernel is running (as Ctrl-C: KeyboardInterrupt in Python). Variables stay. ' +
    'The run_code call of that cell answers with status "interrupted".',
  capabilities: { executesCommands: true },
  input: Type.Object({ kernel: KernelNameInput }, { additionalProperties: false }),
  output: Type.Object({ kernel: Type.String(), wasBusy: Type.Boolean() }),
  examples: [{ kernel: 'default' }],
  async execute(input, ctx) {
    const { result } = await ctx.workspace.call('kernelInterrupt', { name: input.kernel });
    return { kernel: result.name, wasBusy: result.wasBusy };
  },
  render: (data) => (data.wasBusy ? `Interrupted kernel ${data.kernel}` : `Kernel ${data.kernel} was idle`),
});
