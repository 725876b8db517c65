// run_code: runs a cell in a persistent Python kernel (ipykernel) of the session; variables, imports and
// figures live on between calls, as in a notebook.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { effectiveLimits } from '../../runtime/runner/limits.js';
import { kernelBounds, KernelNameInput, renderRunCode, RunCodeOutput } from '../../jobs/kernel-view.js';

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 600_000;

const Input = Type.Object(
  {
    code: Type.String({ minLength: 1, maxLength: 1_000_000, description: 'The cell: Python source' }),
    kernel: KernelNameInput,
    language: Type.Enum(['python'], { default: 'python', description: 'The kernel language' }),
    timeout_ms: Type.Optional(
      Type.Integer({
        minimum: 100,
        maximum: MAX_TIMEOUT_MS,
        description: `Interrupt the cell after this long (default ${DEFAULT_TIMEOUT_MS}); the kernel and its state stay`,
      }),
    ),
  },
  { additionalProperties: false },
);

export default defineTool({
  name: 'run_code',
  category: 'execution',
  description:
    'Run Python in a persistent kernel (Jupyter ipykernel) of this session: variables, imports and open ' +
    'files stay between calls, like notebook cells. Returns printed output, the value of the last ' +
    'expression (text, HTML, JSON), errors with their traceback, and charts: matplotlib figures and ' +
    'other images are saved under .kernel-outputs/ and returned. timeout_ms interrupts a long cell; ' +
    'kernel_interrupt and kernel_restart control the kernel. Runs in the sandbox, in the workspace.',
  capabilities: { executesCommands: true, readsFiles: true, writesFiles: true, destructive: true },
  input: Input,
  output: RunCodeOutput,
  examples: [
    {
      code: 'import pandas as pd\ndf = pd.read_csv("data.csv")\ndf.describe()',
      kernel: 'default',
      language: 'python',
    },
  ],
  // The cell is interrupted at its own timeout; a cold start and a stubborn cell get time beyond it.
  timeoutMs: (input) => (input.timeout_ms ?? DEFAULT_TIMEOUT_MS) + 90_000,
  async execute(input, ctx) {
    const timeoutMs = input.timeout_ms ?? DEFAULT_TIMEOUT_MS;
    const { result } = await ctx.workspace.call('kernelRun', {
      name: input.kernel,
      language: input.language as 'python',
      code: input.code,
      timeoutMs,
      limits: effectiveLimits(MAX_TIMEOUT_MS),
      env: {},
      bounds: kernelBounds(ctx),
    });
    ctx.workspace.runtime.holdFor(ctx.services.config.kernels.idleSeconds * 1000);
    const { outputs } = result;
    for (const output of outputs) {
      if (output.type === 'stream') ctx.emit({ stream: output.name, chunk: output.text });
      else if (output.type === 'error') ctx.emit({ stream: 'stderr', chunk: `${output.traceback}\n` });
      else if (output.text !== undefined) ctx.emit({ stream: 'stdout', chunk: `${output.text}\n` });
    }
    const images = outputs.flatMap((output) => ('files' in output ? output.files : []));
    return { ...result, outputs, images };
  },
  render: renderRunCode,
});
