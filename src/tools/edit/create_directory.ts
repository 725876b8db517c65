// create_directory: make a directory and any missing parents; an existing directory is not an error.
import { promises as fs } from 'node:fs';
import { Type } from 'typebox';
import { fromFsError, toolgateError } from '../../core/errors.js';
import { defineTool } from '../../core/tool.js';

const Input = Type.Object(
  { path: Type.String({ minLength: 1, description: 'Directory to create, relative to the workspace root' }) },
  { additionalProperties: false },
);

const Output = Type.Object({
  path: Type.String(),
  created: Type.Boolean({ description: 'False when the directory already existed' }),
});

export default defineTool({
  name: 'create_directory',
  category: 'edit',
  description: 'Create a directory, with missing parents. Succeeds with created: false if it already exists.',
  capabilities: { readsFiles: true, writesFiles: true, idempotent: true, destructive: false },
  input: Input,
  output: Output,
  examples: [{ path: 'src/utils' }],
  async execute(input, ctx) {
    const target = await ctx.workspace.resolve(input.path);
    const existing = await fs.stat(target.absolute).catch(() => undefined);
    if (existing) {
      if (!existing.isDirectory()) {
        throw toolgateError('ALREADY_EXISTS', `${target.relative} exists and is not a directory`);
      }
      return { path: target.relative, created: false };
    }
    try {
      await fs.mkdir(target.absolute, { recursive: true });
    } catch (err) {
      throw fromFsError(err, target.relative);
    }
    return { path: target.relative, created: true };
  },
  render: (data) => `${data.created ? 'Created' : 'Already exists:'} ${data.path}/`,
});
