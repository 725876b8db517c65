// undo_edit: restore the last change a tool made to a path (write, edit, patch, move, delete), from
// the history kept on disk — also after a restart. A change that touched several files (apply_patch,
// move_file) is undone as a whole; it is refused if one of those files was changed again since.
import { Type } from 'typebox';
import type { ToolContext } from '../../contract/context.js';
import { toolgateError } from '../../lib/errors.js';
import { defineTool } from '../../contract/tool.js';
import type { HistoryEntry } from '../../store/history.js';
import { DryRun, DryRunResult } from '../../edit/dry-run.js';
import { lockKey, rememberFile } from '../../edit/file-guard.js';
import { sha256 } from '../../lib/text.js';

const Input = Type.Object(
  {
    path: Type.String({
      minLength: 1,
      description: 'A path the last change touched, relative to the workspace root',
    }),
    dry_run: DryRun,
  },
  { additionalProperties: false },
);

const Restored = Type.Object({
  path: Type.String(),
  action: Type.Enum(['restored', 'removed', 'moved_back'], {
    description:
      'restored: previous content put back; removed: the change had created it; moved_back: a move was reversed',
  }),
});

const Output = Type.Object({
  path: Type.String(),
  undone: Type.String({ description: 'The tool whose change was undone' }),
  changedAt: Type.String({ description: 'When that change was made (ISO 8601)' }),
  restored: Type.Array(Restored),
  dryRun: DryRunResult,
});

/** What undoing an entry of each kind does (reported by a dry run). */
const ACTION_OF: Record<HistoryEntry['kind'], 'restored' | 'removed' | 'moved_back'> = {
  absent: 'removed',
  moved: 'moved_back',
  directory: 'restored',
  symlink: 'restored',
  file: 'restored',
};

const conflict = (message: string) =>
  toolgateError('CONFLICT', message, {
    suggestion: 'Inspect the files and fix them by hand with the edit tools.',
  });

async function restore(ctx: ToolContext, entry: HistoryEntry) {
  const { workspace } = ctx;
  const target = await workspace.resolve(entry.path, { followFinalSymlink: false });
  const current = (await workspace.stat(target.relative, { follow: false })).stat;
  await ctx.services.fileReads.forget(ctx.session.id, target.relative);
  const restored = { path: target.relative, action: 'restored' as const };
  switch (entry.kind) {
    case 'absent':
      if (current?.type === 'directory')
        throw conflict(`${target.relative} is now a directory; not removing it`);
      await workspace.remove(target.relative);
      return { path: target.relative, action: 'removed' as const };
    case 'moved': {
      const moved = await workspace.resolve(entry.movedTo!, { followFinalSymlink: false });
      if (current) throw conflict(`${target.relative} exists again; cannot move ${moved.relative} back`);
      if (!(await workspace.stat(moved.relative, { follow: false })).stat) {
        throw conflict(`${moved.relative} no longer exists; cannot move it back`);
      }
      await workspace.rename(moved.relative, target.relative);
      await ctx.services.fileReads.forget(ctx.session.id, moved.relative);
      return { path: target.relative, action: 'moved_back' as const };
    }
    case 'directory':
      if (current)
        throw conflict(`${target.relative} exists again; not replacing it with the deleted directory`);
      await ctx.services.history.restoreInto(workspace, ctx.session.id, entry);
      return restored;
    case 'symlink':
      if (current?.type === 'directory') throw conflict(`${target.relative} is now a directory`);
      await ctx.services.history.restoreInto(workspace, ctx.session.id, entry);
      return restored;
    case 'file': {
      if (current?.type === 'directory') throw conflict(`${target.relative} is now a directory`);
      // A symlink now in the way is replaced, not written through.
      if (current && current.type !== 'file') await workspace.remove(target.relative);
      const bytes = await ctx.services.history.readBlob(ctx.session.id, entry.blob!);
      // An atomic write inside the runtime: readers see the current file or the restored one.
      const written = await workspace.writeFile(target.relative, bytes, entry.mode ?? undefined);
      await rememberFile(ctx, target.relative, written.stat, sha256(bytes));
      return restored;
    }
  }
}

export default defineTool({
  name: 'undo_edit',
  category: 'edit',
  description:
    'Undo the most recent change a tool made to a file (write_file, edit_file, multi_edit, apply_patch, ' +
    'move_file, delete_file): previous content is restored, a created file removed, a move reversed, a ' +
    'deleted file or directory brought back. Call again to step further back (up to 20 changes per file).',
  capabilities: { readsFiles: true, writesFiles: true, destructive: true, idempotent: false },
  input: Input,
  output: Output,
  examples: [{ path: 'src/app.ts', dry_run: false }],
  async execute(input, ctx) {
    const target = await ctx.workspace.resolve(input.path, { followFinalSymlink: false });
    const { history } = ctx.services;
    const entries = await history.latestChange(ctx.session.id, target.relative);
    if (entries.length === 0) {
      throw toolgateError('NOT_FOUND', `No change to ${target.relative} is left to undo`, {
        suggestion:
          'Only changes made through the edit tools in this session are kept (the last 20 per file).',
      });
    }
    for (const entry of entries) {
      for (const touched of [entry.path, entry.movedTo].filter((p): p is string => p !== null)) {
        if (touched !== target.relative && (await history.laterChange(ctx.session.id, entry, touched))) {
          throw toolgateError('CONFLICT', `${touched} was changed again after that change`, {
            suggestion: `Undo the later change to ${touched} first.`,
          });
        }
      }
    }
    const paths = entries.flatMap((e) => [e.path, e.movedTo ?? e.path]);
    const resolved = await Promise.all(
      paths.map(async (p) => (await ctx.workspace.resolve(p, { followFinalSymlink: false })).relative),
    );
    return ctx.services.fileLocks.run(
      resolved.map((relative) => lockKey(ctx, relative)),
      async () => {
        // Another call may have undone (or added to) this path's history while this one waited for the
        // locks: act only on the change that was looked at.
        const still = await history.latestChange(ctx.session.id, target.relative);
        if (still[0]?.changeId !== entries[0].changeId) {
          throw toolgateError(
            'CONFLICT',
            `${target.relative} was undone or changed by another call just now`,
            {
              suggestion: 'Read the file to see its state, then call undo_edit again if needed.',
            },
          );
        }
        const summary = {
          path: target.relative,
          undone: entries[0].tool,
          changedAt: new Date(entries[0].createdAt).toISOString(),
        };
        if (input.dry_run) {
          const planned = [...entries].reverse().map((entry) => ({
            path: entry.path,
            action: ACTION_OF[entry.kind],
          }));
          return { ...summary, restored: planned, dryRun: true };
        }
        const restored = [];
        // Newest first: a move that replaced a file is reversed before that file is put back.
        for (const entry of [...entries].reverse()) restored.push(await restore(ctx, entry));
        await history.drop(ctx.session.id, entries[0].changeId);
        return { ...summary, restored, dryRun: false };
      },
    );
  },
  render: (data) =>
    `${data.dryRun ? 'Would undo' : 'Undid'} ${data.undone} from ${data.changedAt}: ` +
    data.restored.map((r) => `${r.path} ${r.action.replace('_', ' ')}`).join(', '),
});
