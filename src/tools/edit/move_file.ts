// move_file: rename a file, symlink or directory inside the workspace. Symlinks are moved as links,
// never followed; an existing destination is replaced only with overwrite (and only if it is not a
// directory). The move is one undo step.
import { Type, type Static } from 'typebox';
import type { ToolContext } from '../../contract/context.js';
import { toolgateError } from '../../lib/errors.js';
import {
  DiagnosticsSwitch,
  EditDiagnostics,
  renderEditDiagnostics,
  withEditDiagnostics,
} from '../../code/lsp/edit-diagnostics.js';
import { defineTool } from '../../contract/tool.js';
import { DryRun, DryRunResult } from '../../edit/dry-run.js';
import { changeRef, checkFresh, ExpectedSha256, lockKey } from '../../edit/file-guard.js';

const Input = Type.Object(
  {
    source: Type.String({ minLength: 1, description: 'What to move, relative to the workspace root' }),
    destination: Type.String({ minLength: 1, description: 'The new path (not a directory to move into)' }),
    overwrite: Type.Boolean({ default: false, description: 'Replace an existing destination file' }),
    expected_sha256: ExpectedSha256,
    dry_run: DryRun,
    diagnostics: DiagnosticsSwitch,
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  source: Type.String(),
  destination: Type.String(),
  overwritten: Type.Boolean(),
  dryRun: DryRunResult,
  diagnostics: EditDiagnostics,
});

export default defineTool({
  name: 'move_file',
  category: 'edit',
  description:
    'Move or rename a file, directory or symlink within the workspace; parent directories of the ' +
    'destination are created. An existing destination is refused unless overwrite is true (directories ' +
    'are never overwritten). undo_edit on either path moves it back.',
  capabilities: { readsFiles: true, writesFiles: true, destructive: true, idempotent: false },
  input: Input,
  output: Output,
  examples: [{ source: 'src/old-name.ts', destination: 'src/new-name.ts', overwrite: false, dry_run: false }],
  async execute(input, ctx) {
    return withEditDiagnostics(
      ctx,
      { enabled: input.diagnostics, dryRun: input.dry_run, paths: [input.source] },
      () => move(input, ctx),
      (result) => [{ path: result.destination, from: result.source }],
    );
  },
  render: (data) =>
    `${data.dryRun ? 'Would move' : 'Moved'} ${data.source} → ${data.destination}` +
    (data.overwritten ? ` (${data.dryRun ? 'replacing' : 'replaced'} the old file)` : '') +
    renderEditDiagnostics(data.diagnostics),
});

async function move(input: Static<typeof Input>, ctx: ToolContext) {
  const source = await ctx.workspace.resolve(input.source, { followFinalSymlink: false });
  const destination = await ctx.workspace.resolve(input.destination, { followFinalSymlink: false });
  if (source.relative === '.' || destination.relative === '.') {
    throw toolgateError('BAD_REQUEST', 'The workspace root cannot be moved or replaced');
  }
  if (destination.relative === source.relative)
    throw toolgateError('NO_CHANGES', 'source and destination are the same');
  if (destination.relative.startsWith(`${source.relative}/`)) {
    throw toolgateError('BAD_REQUEST', `Cannot move ${source.relative} into itself`);
  }
  const locks = [lockKey(ctx, source.relative), lockKey(ctx, destination.relative)];
  return ctx.services.fileLocks.run(locks, async () => {
    const sourceStat = (await ctx.workspace.stat(source.relative, { follow: false })).stat;
    if (!sourceStat) {
      throw toolgateError('FILE_NOT_FOUND', `No such file or directory: ${source.relative}`, {
        suggestion: 'Check the path with list_directory or glob.',
      });
    }
    if (input.expected_sha256 !== undefined) {
      // Compare-and-swap on the file being moved (its content is what the caller vouches for).
      const current = sourceStat.type === 'file' ? await ctx.workspace.hashFile(source.relative) : undefined;
      await checkFresh(ctx, source.relative, current, input.expected_sha256);
    }
    const existing = (await ctx.workspace.stat(destination.relative, { follow: false })).stat;
    if (existing && (!input.overwrite || existing.type === 'directory')) {
      throw toolgateError('ALREADY_EXISTS', `${destination.relative} already exists`, {
        suggestion:
          existing.type === 'directory'
            ? 'Directories are never overwritten; give the full new path, e.g. dir/name.'
            : 'Pass overwrite: true to replace it, or choose another destination.',
      });
    }
    if (existing?.type === 'file') {
      await checkFresh(ctx, destination.relative, await ctx.workspace.hashFile(destination.relative));
    }
    if (input.dry_run) {
      return {
        source: source.relative,
        destination: destination.relative,
        overwritten: existing !== null,
        dryRun: true,
      };
    }
    const { history, fileReads } = ctx.services;
    const change = changeRef(ctx, 'move_file');
    const known = await fileReads.get(ctx.session.id, source.relative);
    try {
      if (existing) await history.stash(change, ctx.workspace, destination.relative);
      await ctx.workspace.rename(source.relative, destination.relative);
      try {
        await history.recordMove(change, source.relative, destination.relative);
      } catch (err) {
        // No room for the undo step (a full disk): the move is taken back, nothing half-done.
        await ctx.workspace.rename(destination.relative, source.relative).catch(() => undefined);
        throw err;
      }
    } catch (err) {
      // Put a stashed destination back before forgetting the change: nothing may be lost.
      const stashed = (await history.latestChange(ctx.session.id, destination.relative)).find(
        (e) => e.changeId === change.changeId,
      );
      if (stashed) await history.restoreInto(ctx.workspace, ctx.session.id, stashed).catch(() => undefined);
      await history.drop(ctx.session.id, change.changeId);
      throw err;
    }
    await fileReads.forget(ctx.session.id, source.relative);
    await fileReads.forget(ctx.session.id, destination.relative);
    // The session knew the content before the move; it still does.
    if (known) {
      const { stat } = await ctx.workspace.stat(destination.relative, { follow: false });
      if (stat) {
        await fileReads.record(ctx.session.id, destination.relative, {
          ...known,
          mtimeMs: stat.mtimeMs,
          size: stat.size,
        });
      }
    }
    await history.prune(ctx.session.id, [source.relative, destination.relative]);
    return {
      source: source.relative,
      destination: destination.relative,
      overwritten: existing !== null,
      dryRun: false,
    };
  });
}
