// undo_edit: restore the last change a tool made to a path (write, edit, patch, move, delete), from
// the history kept on disk — also after a restart. A change that touched several files (apply_patch,
// move_file) is undone as a whole; it is refused if one of those files was changed again since.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { Type } from 'typebox';
import type { ToolContext } from '../../core/context.js';
import { toolgateError } from '../../core/errors.js';
import { defineTool } from '../../core/tool.js';
import type { HistoryEntry } from '../../store/history.js';
import { hashFile, rememberFile } from '../shared/file-guard.js';

const Input = Type.Object(
  {
    path: Type.String({
      minLength: 1,
      description: 'A path the last change touched, relative to the workspace root',
    }),
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
});

const conflict = (message: string) =>
  toolgateError('CONFLICT', message, {
    suggestion: 'Inspect the files and fix them by hand with the edit tools.',
  });

async function restore(ctx: ToolContext, entry: HistoryEntry) {
  const target = await ctx.workspace.resolve(entry.path, { followFinalSymlink: false });
  const current = await fs.lstat(target.absolute).catch(() => undefined);
  const blob = entry.blob ? ctx.services.history.blobPath(ctx.session.id, entry.blob) : '';
  ctx.services.fileReads.forget(ctx.session.id, target.relative);
  switch (entry.kind) {
    case 'absent':
      if (current?.isDirectory()) throw conflict(`${target.relative} is now a directory; not removing it`);
      await fs.rm(target.absolute, { force: true });
      return { path: target.relative, action: 'removed' as const };
    case 'moved': {
      const moved = await ctx.workspace.resolve(entry.movedTo!, { followFinalSymlink: false });
      if (current) throw conflict(`${target.relative} exists again; cannot move ${moved.relative} back`);
      await fs.lstat(moved.absolute).catch(() => {
        throw conflict(`${moved.relative} no longer exists; cannot move it back`);
      });
      await fs.mkdir(path.dirname(target.absolute), { recursive: true });
      await fs.rename(moved.absolute, target.absolute);
      ctx.services.fileReads.forget(ctx.session.id, moved.relative);
      return { path: target.relative, action: 'moved_back' as const };
    }
    case 'directory':
      if (current)
        throw conflict(`${target.relative} exists again; not replacing it with the deleted directory`);
      await fs.mkdir(path.dirname(target.absolute), { recursive: true });
      await fs.rename(blob, target.absolute);
      return { path: target.relative, action: 'restored' as const };
    case 'symlink':
      if (current?.isDirectory()) throw conflict(`${target.relative} is now a directory`);
      await fs.mkdir(path.dirname(target.absolute), { recursive: true });
      await fs.rm(target.absolute, { force: true });
      await fs.symlink(entry.linkTarget!, target.absolute);
      return { path: target.relative, action: 'restored' as const };
    case 'file':
      if (current?.isDirectory()) throw conflict(`${target.relative} is now a directory`);
      await fs.mkdir(path.dirname(target.absolute), { recursive: true });
      if (entry.mode !== null) await fs.chmod(blob, entry.mode);
      // rename is atomic: readers see the current file or the restored one.
      await fs.rename(blob, target.absolute);
      await rememberFile(ctx, target.relative, target.absolute, await hashFile(target.absolute));
      return { path: target.relative, action: 'restored' as const };
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
  examples: [{ path: 'src/app.ts' }],
  async execute(input, ctx) {
    const target = await ctx.workspace.resolve(input.path, { followFinalSymlink: false });
    const { history } = ctx.services;
    const entries = history.latestChange(ctx.session.id, target.relative);
    if (entries.length === 0) {
      throw toolgateError('NOT_FOUND', `No change to ${target.relative} is left to undo`, {
        suggestion:
          'Only changes made through the edit tools in this session are kept (the last 20 per file).',
      });
    }
    for (const entry of entries) {
      for (const touched of [entry.path, entry.movedTo].filter((p): p is string => p !== null)) {
        if (touched !== target.relative && history.laterChange(ctx.session.id, entry, touched)) {
          throw toolgateError('CONFLICT', `${touched} was changed again after that change`, {
            suggestion: `Undo the later change to ${touched} first.`,
          });
        }
      }
    }
    const paths = entries.flatMap((e) => [e.path, e.movedTo ?? e.path]);
    const absolute = await Promise.all(
      paths.map(async (p) => (await ctx.workspace.resolve(p, { followFinalSymlink: false })).absolute),
    );
    return ctx.services.fileLocks.run(absolute, async () => {
      const restored = [];
      // Newest first: a move that replaced a file is reversed before that file is put back.
      for (const entry of [...entries].reverse()) restored.push(await restore(ctx, entry));
      await history.drop(ctx.session.id, entries[0].changeId);
      return {
        path: target.relative,
        undone: entries[0].tool,
        changedAt: new Date(entries[0].createdAt).toISOString(),
        restored,
      };
    });
  },
  render: (data) =>
    `Undid ${data.undone} from ${data.changedAt}: ` +
    data.restored.map((r) => `${r.path} ${r.action.replace('_', ' ')}`).join(', '),
});
