// create_directory: make a directory and any missing parents; an existing directory is not an error.
import { Type } from 'typebox';
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
    // The runtime checks, creates and answers in one operation (ALREADY_EXISTS for a file in the way).
    const made = await ctx.workspace.mkdir(input.path);
    return { path: made.relative, created: made.created };
  },
  render: (data) => `${data.created ? 'Created' : 'Already exists:'} ${data.path}/`,
});
