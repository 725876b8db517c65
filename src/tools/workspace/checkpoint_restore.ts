// checkpoint_restore: put the workspace back as it was at a checkpoint: contents, modes and symlinks,
// files created since removed. A write: it needs the write permission and follows the approval policy.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';

export default defineTool({
  name: 'checkpoint_restore',
  category: 'workspace',
  description:
    'Restore the workspace to a checkpoint: every file back to its content and mode there, symlinks ' +
    'recreated, files and directories created since removed. Unchanged files are not rewritten.',
  capabilities: { readsFiles: true, writesFiles: true, destructive: true, idempotent: true },
  input: Type.Object(
    { checkpoint: Type.String({ minLength: 1, maxLength: 100, description: 'A checkpoint id (cp_…)' }) },
    { additionalProperties: false },
  ),
  output: Type.Object({
    checkpoint: Type.String(),
    written: Type.Integer({ description: 'Files and symlinks written back' }),
    removed: Type.Integer({ description: 'Entries removed (whole directories count once)' }),
    unchanged: Type.Integer({ description: 'Files and symlinks that were already as in the checkpoint' }),
  }),
  examples: [{ checkpoint: 'cp_0123456789abcdef' }],
  async execute(input, ctx) {
    const applied = await ctx.services.snapshots.restore(ctx.session.id, ctx.workspace, input.checkpoint);
    // Read-tracking is left as it is: a restored file's hash differs from what was read, so a write
    // tool asks for a fresh read first.
    const { written, removed, unchanged } = applied;
    return { checkpoint: input.checkpoint, written, removed, unchanged };
  },
  render: (data) =>
    `Restored ${data.checkpoint}: ${data.written} written, ${data.removed} removed, ${data.unchanged} unchanged`,
});
