// checkpoint_create: save the whole workspace now, to come back to with checkpoint_restore.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { CheckpointSchema } from '../../store/checkpoints.js';

export default defineTool({
  name: 'checkpoint_create',
  category: 'workspace',
  description:
    'Save the whole workspace as a checkpoint before a risky change; checkpoint_restore brings it back ' +
    'exactly (contents, modes, symlinks; files made since are removed). Unchanged files are shared with ' +
    'earlier snapshots, so a checkpoint costs little.',
  capabilities: { readsFiles: true, idempotent: false },
  input: Type.Object(
    {
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A label for the list' })),
    },
    { additionalProperties: false },
  ),
  output: CheckpointSchema,
  examples: [{ name: 'before refactoring the parser' }],
  async execute(input, ctx) {
    return ctx.services.snapshots.createCheckpoint(ctx.session.id, ctx.workspace, input.name);
  },
  render: (data) =>
    `Checkpoint ${data.id}${data.name ? ` (${data.name})` : ''}: ${data.files} files, ${data.bytes} bytes`,
});
