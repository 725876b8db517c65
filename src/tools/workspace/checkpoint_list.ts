// checkpoint_list: the session's checkpoints, oldest first.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { CheckpointSchema } from '../../store/checkpoints.js';

export default defineTool({
  name: 'checkpoint_list',
  category: 'workspace',
  description: 'List the checkpoints of this session (oldest first), with their ids for checkpoint_restore.',
  capabilities: { readsFiles: true, idempotent: true },
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ checkpoints: Type.Array(CheckpointSchema) }),
  examples: [{}],
  async execute(_input, ctx) {
    return { checkpoints: await ctx.services.snapshots.list(ctx.session.id) };
  },
  render: (data) =>
    data.checkpoints.length === 0
      ? 'No checkpoints.'
      : data.checkpoints.map((c) => `${c.id} ${c.createdAt} ${c.name ?? ''} (${c.files} files)`).join('\n'),
});
