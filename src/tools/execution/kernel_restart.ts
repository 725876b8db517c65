// kernel_restart: a fresh interpreter under the same name; every variable and import is gone.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { KernelNameInput } from '../../jobs/kernel-view.js';

export default defineTool({
  name: 'kernel_restart',
  category: 'execution',
  description: 'Restart a kernel: the interpreter is ended and started again, empty (all state is lost).',
  capabilities: { executesCommands: true, destructive: true },
  input: Type.Object({ kernel: KernelNameInput }, { additionalProperties: false }),
  output: Type.Object({ kernel: Type.String(), startedMs: Type.Integer() }),
  examples: [{ kernel: 'default' }],
  timeoutMs: () => 120_000,
  async execute(input, ctx) {
    const { result } = await ctx.workspace.call('kernelRestart', { name: input.kernel });
    ctx.workspace.runtime.holdFor(ctx.services.config.kernels.idleSeconds * 1000);
    return { kernel: result.name, startedMs: result.startedMs };
  },
  render: (data) => `Restarted kernel ${data.kernel} (${data.startedMs} ms)`,
});
