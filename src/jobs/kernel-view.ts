// What the kernel tools share: the kernel name input, the bounds from config, and run_code's answer
// as a schema and as text for a model.
import { Type, type Static } from 'typebox';
import type { Config } from '../config.js';
import type { KernelBounds, KernelInfo } from '../runtime/ops/kernels.js';

export const KernelNameInput = Type.String({
  pattern: '^[A-Za-z0-9_-]{1,32}$',
  default: 'default',
  description: 'Which kernel (each name is its own interpreter with its own variables)',
});

/** A kernel as kernel_list shows it (and the session's console view). */
export const KernelInfoSchema = Type.Object({
  kernel: Type.String(),
  language: Type.String(),
  pid: Type.Union([Type.Integer(), Type.Null()]),
  busy: Type.Boolean({ description: 'Running a cell now' }),
  executions: Type.Integer(),
  startedAt: Type.String(),
  lastUsedAt: Type.String(),
});

export const kernelInfoData = ({ name, ...rest }: KernelInfo): Static<typeof KernelInfoSchema> => ({
  kernel: name,
  ...rest,
});

/** From a tool's context (jobs/ sits below the tool contract): the kernel settings and the output cap. */
export function kernelBounds(ctx: {
  readonly services: { readonly config: Pick<Config, 'kernels'> };
  readonly limits: { readonly outputMaxBytes: number };
}): KernelBounds {
  const { kernels } = ctx.services.config;
  return {
    max: kernels.maxPerSession,
    idleMs: kernels.idleSeconds * 1000,
    outputMaxBytes: ctx.limits.outputMaxBytes,
    inlineImageBytes: kernels.inlineImageBytes,
  };
}

const KernelFileSchema = Type.Object({
  path: Type.String({ description: 'Where the image was saved, workspace-relative' }),
  mimeType: Type.String(),
  bytes: Type.Integer(),
  base64: Type.Optional(Type.String({ description: 'The image itself, when small enough' })),
});

const OutputSchema = Type.Union([
  Type.Object({ type: Type.Literal('stream'), name: Type.Enum(['stdout', 'stderr']), text: Type.String() }),
  Type.Object({
    type: Type.Enum(['result', 'display']),
    text: Type.Optional(Type.String({ description: 'text/plain' })),
    html: Type.Optional(Type.String({ description: 'text/html' })),
    markdown: Type.Optional(Type.String({ description: 'text/markdown' })),
    json: Type.Optional(Type.Unknown({ description: 'application/json' })),
    files: Type.Array(KernelFileSchema, { description: 'Images (PNG, JPEG, SVG) saved into the workspace' }),
    mimeTypes: Type.Array(Type.String()),
  }),
  Type.Object({
    type: Type.Literal('error'),
    ename: Type.String(),
    evalue: Type.String(),
    traceback: Type.String(),
  }),
]);

export const RunCodeOutput = Type.Object({
  kernel: Type.String(),
  status: Type.Enum(['ok', 'error', 'timeout', 'interrupted', 'dead'], {
    description: 'dead: the kernel died (its state is gone; the next cell starts a new one)',
  }),
  executionCount: Type.Union([Type.Integer(), Type.Null()]),
  outputs: Type.Array(OutputSchema),
  startedMs: Type.Optional(
    Type.Integer({ description: 'The kernel was started for this cell, in this long' }),
  ),
  restarted: Type.Optional(
    Type.Boolean({ description: 'The timeout could not interrupt the cell: restarted' }),
  ),
  truncated: Type.Boolean(),
  images: Type.Array(KernelFileSchema, { description: 'Every image of the cell (also in outputs)' }),
});
export type RunCodeData = Static<typeof RunCodeOutput>;

export function renderRunCode(data: RunCodeData): string {
  const parts: string[] = [];
  const count = data.executionCount === null ? '' : ` [${data.executionCount}]`;
  const started = data.startedMs !== undefined ? ` (kernel started in ${data.startedMs} ms)` : '';
  parts.push(`Kernel ${data.kernel}${count}: ${data.status}${started}`);
  if (data.restarted)
    parts.push('The cell did not stop when interrupted: the kernel was restarted, its state is gone.');
  for (const output of data.outputs) {
    if (output.type === 'stream')
      parts.push(output.name === 'stderr' ? `stderr:\n${output.text}` : output.text);
    else if (output.type === 'error') parts.push(output.traceback || `${output.ename}: ${output.evalue}`);
    else {
      if (output.text !== undefined) parts.push(output.text);
      for (const file of output.files) parts.push(`[${file.mimeType} saved as ${file.path}]`);
      if (output.html !== undefined && output.text === undefined) parts.push(output.html);
    }
  }
  if (data.truncated) parts.push('(output cut)');
  return parts.join('\n');
}
