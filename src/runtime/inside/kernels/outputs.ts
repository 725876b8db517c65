// A cell's Jupyter outputs as run_code returns them: text kept (cut at the cell's byte budget), errors
// with their traceback in plain text, and images (PNG, JPEG, SVG) saved into the workspace under
// .kernel-outputs/<kernel>/, so a model or a person can open them later; small ones also travel inline.
import type { KernelBounds, KernelFile, KernelOutput } from '../../ops/kernels.js';
import { writeAtomic } from '../files.js';
import type { OpContext } from '../handler.js';
import { plainText } from '../terminals/ansi.js';

const IMAGE_TYPES: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/svg+xml': 'svg',
};

/** Text budget of one cell: each piece takes from it; what does not fit is cut, and the cut is reported. */
class Budget {
  truncated = false;
  constructor(private left: number) {}
  take(text: string): string {
    const bytes = Buffer.byteLength(text);
    if (bytes <= this.left) {
      this.left -= bytes;
      return text;
    }
    this.truncated = true;
    const kept = Buffer.from(text).subarray(0, this.left).toString('utf8');
    this.left = 0;
    return `${kept}\n[output truncated]`;
  }
}

const asText = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : Array.isArray(value) ? value.join('') : undefined;

export async function convertOutputs(
  raw: ReadonlyArray<Record<string, unknown>>,
  kernel: string,
  executionCount: number | null,
  bounds: KernelBounds,
  ctx: OpContext,
): Promise<{ outputs: KernelOutput[]; truncated: boolean }> {
  const budget = new Budget(bounds.outputMaxBytes);
  const outputs: KernelOutput[] = [];
  let imageNumber = 0;
  for (const output of raw) {
    if (output.type === 'stream') {
      outputs.push({
        type: 'stream',
        name: output.name === 'stderr' ? 'stderr' : 'stdout',
        text: budget.take(plainText(String(output.text ?? ''))),
      });
    } else if (output.type === 'error') {
      const traceback = Array.isArray(output.traceback) ? output.traceback.map(String).join('\n') : '';
      outputs.push({
        type: 'error',
        ename: String(output.ename ?? ''),
        evalue: budget.take(String(output.evalue ?? '')),
        traceback: budget.take(plainText(traceback)),
      });
    } else if (output.type === 'result' || output.type === 'display') {
      const data = (output.data ?? {}) as Record<string, unknown>;
      const files: KernelFile[] = [];
      for (const [mimeType, extension] of Object.entries(IMAGE_TYPES)) {
        const content = asText(data[mimeType]);
        if (content === undefined) continue;
        const bytes = extension === 'svg' ? Buffer.from(content) : Buffer.from(content, 'base64');
        const name = `${executionCount ?? 'x'}-${++imageNumber}.${extension}`;
        files.push(await saveFile(kernel, name, mimeType, bytes, bounds, ctx));
      }
      const text = asText(data['text/plain']);
      const html = asText(data['text/html']);
      const markdown = asText(data['text/markdown']);
      outputs.push({
        type: output.type,
        ...(text !== undefined ? { text: budget.take(text) } : {}),
        ...(html !== undefined ? { html: budget.take(html) } : {}),
        ...(markdown !== undefined ? { markdown: budget.take(markdown) } : {}),
        ...(data['application/json'] !== undefined ? { json: data['application/json'] } : {}),
        files,
        mimeTypes: Object.keys(data),
      });
    }
  }
  return { outputs, truncated: budget.truncated };
}

async function saveFile(
  kernel: string,
  name: string,
  mimeType: string,
  bytes: Buffer,
  bounds: KernelBounds,
  ctx: OpContext,
): Promise<KernelFile> {
  const target = await ctx.paths.resolve(`.kernel-outputs/${kernel}/${name}`);
  await writeAtomic(target.absolute, bytes, undefined);
  // A file of the same name may have been replaced (cell numbers start again after a restart): recount.
  ctx.usage.invalidate();
  return {
    path: target.relative,
    mimeType,
    bytes: bytes.length,
    ...(bytes.length <= bounds.inlineImageBytes ? { base64: bytes.toString('base64') } : {}),
  };
}
