// delete_file: remove a file, symlink or (only with recursive) a non-empty directory. Nothing is
// destroyed: the item is moved into the session's history so undo_edit can bring it back (unless there is
// no room for the copy: on a full disk, deleting is how an agent makes room, and the result says so).
import { Type } from 'typebox';
import { toolgateError } from '../../lib/errors.js';
import { defineTool } from '../../contract/tool.js';
import { DryRun, DryRunResult } from '../../edit/dry-run.js';
import { checkFresh, changeRef, ExpectedSha256, lockKey } from '../../edit/file-guard.js';

const Input = Type.Object(
  {
    path: Type.String({ minLength: 1, description: 'File or directory, relative to the workspace root' }),
    recursive: Type.Boolean({
      default: false,
      description: 'Required to delete a directory that is not empty',
    }),
    expected_sha256: ExpectedSha256,
    dry_run: DryRun,
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  path: Type.String(),
  deleted: Type.Boolean(),
  type: Type.Enum(['file', 'directory', 'symlink', 'other']),
  undoable: Type.Boolean({
    description:
      'A copy was kept and undo_edit restores it; false for a tree larger than the history budget, or when the disk had no room for the copy',
  }),
  dryRun: DryRunResult,
});

export default defineTool({
  name: 'delete_file',
  category: 'edit',
  description:
    'Delete a file or symlink (the link itself, never its target), or a directory: an empty one always, a ' +
    'non-empty one only with recursive: true. The deleted item is kept in the history; undo_edit restores it.',
  capabilities: { readsFiles: true, writesFiles: true, destructive: true, idempotent: false },
  input: Input,
  output: Output,
  examples: [{ path: 'tmp/old.txt', recursive: false, dry_run: false }],
  async execute(input, ctx) {
    const target = await ctx.workspace.resolve(input.path, { followFinalSymlink: false });
    if (target.relative === '.')
      throw toolgateError('PERMISSION_DENIED', 'The workspace root cannot be deleted');
    return ctx.services.fileLocks.run([lockKey(ctx, target.relative)], async () => {
      const { stat } = await ctx.workspace.stat(target.relative, { follow: false });
      if (!stat) {
        throw toolgateError('FILE_NOT_FOUND', `No such file or directory: ${target.relative}`, {
          suggestion: 'Check the path with list_directory or glob.',
        });
      }
      const type = ['symlink', 'directory', 'file'].includes(stat.type)
        ? (stat.type as 'symlink' | 'directory' | 'file')
        : 'other';
      if (
        type === 'directory' &&
        !input.recursive &&
        (await ctx.workspace.readdir(target.relative)).entries.length > 0
      ) {
        throw toolgateError('DIRECTORY_NOT_EMPTY', `${target.relative} is not empty`, {
          suggestion: 'Pass recursive: true to delete the directory and everything in it.',
        });
      }
      if (type === 'file')
        await checkFresh(
          ctx,
          target.relative,
          await ctx.workspace.hashFile(target.relative),
          input.expected_sha256,
        );
      else if (input.expected_sha256 !== undefined) {
        throw toolgateError('CONFLICT', `${target.relative} is a ${type}; expected_sha256 applies to files`);
      }
      if (input.dry_run)
        return { path: target.relative, deleted: false, type, undoable: false, dryRun: true };
      const { history } = ctx.services;
      const undoable = await history.stash(changeRef(ctx, 'delete_file'), ctx.workspace, target.relative);
      await ctx.services.fileReads.forget(ctx.session.id, target.relative);
      await history.prune(ctx.session.id, [target.relative]);
      return { path: target.relative, deleted: true, type, undoable, dryRun: false };
    });
  },
  render: (data) =>
    data.dryRun
      ? `Would delete ${data.type} ${data.path}; nothing deleted`
      : `Deleted ${data.type} ${data.path} (${data.undoable ? 'undo_edit restores it' : 'no copy kept: undo_edit cannot restore it'})`,
});
