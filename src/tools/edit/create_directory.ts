// create_directory: make a directory and any missing parents; an existing directory is not an error.
import { Type } from 'typebox';
import { toolgateError } from '../../lib/errors.js';
import { defineTool } from '../../contract/tool.js';
import { DryRun, DryRunResult } from '../../edit/dry-run.js';

const Input = Type.Object(
  {
    path: Type.String({ minLength: 1, description: 'Directory to create, relative to the workspace root' }),
    dry_run: DryRun,
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  path: Type.String(),
  created: Type.Boolean({ description: 'False when the directory already existed' }),
  dryRun: DryRunResult,
});

export default defineTool({
  name: 'create_directory',
  category: 'edit',
  description: 'Create a directory, with missing parents. Succeeds with created: false if it already exists.',
  capabilities: { readsFiles: true, writesFiles: true, idempotent: true, destructive: false },
  input: Input,
  output: Output,
  examples: [{ path: 'src/utils', dry_run: false }],
  async execute(input, ctx) {
    if (input.dry_run) {
      const target = await ctx.workspace.resolve(input.path);
      const { stat } = await ctx.workspace.stat(target.relative);
      if (stat && stat.type !== 'directory') {
        throw toolgateError('ALREADY_EXISTS', `${target.relative} already exists and is not a directory`);
      }
      return { path: target.relative, created: stat === null, dryRun: true };
    }
    // The runtime checks, creates and answers in one operation (ALREADY_EXISTS for a file in the way).
    const made = await ctx.workspace.mkdir(input.path);
    return { path: made.relative, created: made.created, dryRun: false };
  },
  render: (data) =>
    data.dryRun
      ? `${data.created ? 'Would create' : 'Already exists:'} ${data.path}/ (dry run)`
      : `${data.created ? 'Created' : 'Already exists:'} ${data.path}/`,
});
