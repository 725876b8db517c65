// write_file: create or replace a file atomically (temp file + rename), creating parent directories,
// keeping an existing file's mode and previous version (undo_edit), refusing to clobber unseen changes.
// The workspace quota is checked in commitWrites.
import { Type, type Static } from 'typebox';
import type { ToolContext } from '../../contract/context.js';
import { isToolgateError, toolgateError } from '../../lib/errors.js';
import {
  DiagnosticsSwitch,
  EditDiagnostics,
  renderEditDiagnostics,
  withEditDiagnostics,
} from '../../code/lsp/edit-diagnostics.js';
import { defineTool } from '../../contract/tool.js';
import { DryRun, DryRunResult } from '../../edit/dry-run.js';
import { commitWrites } from '../../edit/file-commit.js';
import { checkFresh, ExpectedSha256, lockKey } from '../../edit/file-guard.js';

const Input = Type.Object(
  {
    path: Type.String({ minLength: 1, description: 'File path, relative to the workspace root' }),
    content: Type.String({ description: 'The complete new content of the file (UTF-8)' }),
    expected_sha256: ExpectedSha256,
    dry_run: DryRun,
    diagnostics: DiagnosticsSwitch,
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  path: Type.String(),
  bytesWritten: Type.Integer(),
  created: Type.Boolean({ description: 'True when the file did not exist before' }),
  dryRun: DryRunResult,
  diagnostics: EditDiagnostics,
});

export default defineTool({
  name: 'write_file',
  category: 'edit',
  description:
    'Create a file or replace its whole content. Parent directories are created. The write is atomic: ' +
    'readers see the old or the new content, never a mix. Prefer edit_file to change part of a file. ' +
    'Overwriting a file that changed since this session read it is refused (409 FILE_CHANGED_SINCE_READ); ' +
    'the previous version is kept for undo_edit.',
  capabilities: { readsFiles: true, writesFiles: true, idempotent: true, destructive: true },
  input: Input,
  output: Output,
  examples: [{ path: 'notes/todo.md', content: '# Todo\n', dry_run: false }],
  execute: (input, ctx) =>
    withEditDiagnostics(
      ctx,
      { enabled: input.diagnostics, dryRun: input.dry_run, paths: [input.path] },
      () => write(input, ctx),
      (result) => [{ path: result.path }],
    ),
  render: (data) =>
    (data.dryRun
      ? `Would ${data.created ? 'create' : 'overwrite'} ${data.path} (${data.bytesWritten} bytes); nothing written`
      : `${data.created ? 'Created' : 'Wrote'} ${data.path} (${data.bytesWritten} bytes)`) +
    renderEditDiagnostics(data.diagnostics),
});

async function write(input: Static<typeof Input>, ctx: ToolContext) {
  const bytes = Buffer.byteLength(input.content);
  if (bytes > ctx.limits.writeMaxBytes) {
    throw toolgateError(
      'FILE_TOO_LARGE',
      `content is ${bytes} bytes; the limit is ${ctx.limits.writeMaxBytes}`,
    );
  }
  const target = await ctx.workspace.resolve(input.path);
  if (target.relative === '.') throw toolgateError('NOT_A_FILE', 'Cannot write to the workspace root');
  let created = false;
  await ctx.services.fileLocks.run([lockKey(ctx, target.relative)], async () => {
    // What is there now, in one runtime operation: its hash for the freshness check, its bytes for
    // the history. Anything but a regular file is refused there (NOT_A_FILE).
    const existing = await ctx.workspace
      .readFile(target.relative, Number.MAX_SAFE_INTEGER)
      .catch((err: unknown) => {
        if (isToolgateError(err) && err.code === 'FILE_NOT_FOUND') return undefined;
        if (isToolgateError(err) && err.code === 'NOT_A_FILE') {
          throw toolgateError('NOT_A_FILE', `${target.relative} is not a regular file`, {
            suggestion: 'Choose a file path.',
          });
        }
        throw err;
      });
    await checkFresh(ctx, target.relative, existing?.sha256, input.expected_sha256);
    created = existing === undefined;
    if (input.dry_run) return;
    await commitWrites(ctx, 'write_file', [
      {
        relative: target.relative,
        bytes: Buffer.from(input.content, 'utf8'),
        previous: existing && { bytes: existing.bytes, mode: existing.stat.mode },
      },
    ]);
  });
  return { path: target.relative, bytesWritten: bytes, created, dryRun: input.dry_run };
}
