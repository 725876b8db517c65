// write_file: create or replace a file atomically (temp file + rename), creating parent directories
// and keeping an existing file's mode.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { Type } from 'typebox';
import { fromFsError, toolgateError } from '../../core/errors.js';
import { defineTool } from '../../core/tool.js';
import { checkWriteQuota } from '../../sandbox/quota.js';
import { writeFileAtomic } from '../shared/atomic-write.js';

const Input = Type.Object(
  {
    path: Type.String({ minLength: 1, description: 'File path, relative to the workspace root' }),
    content: Type.String({ description: 'The complete new content of the file (UTF-8)' }),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  path: Type.String(),
  bytesWritten: Type.Integer(),
  created: Type.Boolean({ description: 'True when the file did not exist before' }),
});

export default defineTool({
  name: 'write_file',
  category: 'edit',
  description:
    'Create a file or replace its whole content. Parent directories are created. The write is atomic: ' +
    'readers see the old or the new content, never a mix. Prefer edit_file to change part of a file.',
  capabilities: { readsFiles: true, writesFiles: true, idempotent: true, destructive: true },
  input: Input,
  output: Output,
  examples: [{ path: 'notes/todo.md', content: '# Todo\n' }],
  async execute(input, ctx) {
    const bytes = Buffer.byteLength(input.content);
    if (bytes > ctx.limits.writeMaxBytes) {
      throw toolgateError(
        'FILE_TOO_LARGE',
        `content is ${bytes} bytes; the limit is ${ctx.limits.writeMaxBytes}`,
      );
    }
    const target = await ctx.workspace.resolve(input.path);
    if (target.relative === '.') throw toolgateError('NOT_A_FILE', 'Cannot write to the workspace root');
    const existing = await fs.stat(target.absolute).catch(() => undefined);
    if (existing?.isDirectory()) {
      throw toolgateError('NOT_A_FILE', `${target.relative} is a directory`, {
        suggestion: 'Choose a file path.',
      });
    }
    await checkWriteQuota(ctx, target, bytes);
    try {
      await fs.mkdir(path.dirname(target.absolute), { recursive: true });
      await writeFileAtomic(target.absolute, input.content);
    } catch (err) {
      throw fromFsError(err, target.relative);
    }
    return { path: target.relative, bytesWritten: bytes, created: existing === undefined };
  },
  render: (data) => `${data.created ? 'Created' : 'Wrote'} ${data.path} (${data.bytesWritten} bytes)`,
});
