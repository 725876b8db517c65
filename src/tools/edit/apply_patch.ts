// apply_patch: a unified diff over one or more files (changes, new files, deletions, renames), applied
// all or nothing: every hunk is checked before the first byte is written, and a failed write rolls back.
import path from 'node:path';
import { Type } from 'typebox';
import { toolgateError } from '../../lib/errors.js';
import { defineTool } from '../../contract/tool.js';
import { commitWrites } from '../../edit/file-commit.js';
import { lockKey } from '../../edit/file-guard.js';
import { parseUnifiedDiff } from '../../edit/patch.js';
import { planFile } from '../../edit/patch-plan.js';

const Input = Type.Object(
  {
    patch: Type.String({
      minLength: 1,
      description:
        'Unified diff (git diff or diff -u); "--- /dev/null" creates a file, "+++ /dev/null" deletes one',
    }),
    dry_run: Type.Boolean({ default: false, description: 'Check that every hunk applies without writing' }),
    expected_sha256: Type.Optional(
      Type.Record(Type.String(), Type.String({ pattern: '^[0-9a-fA-F]{64}$' }), {
        description:
          'Compare-and-swap per file: { "path": "<sha256 as you last saw it>" }; 409 if a file differs',
      }),
    ),
  },
  { additionalProperties: false },
);

const FileResult = Type.Object({
  path: Type.String(),
  status: Type.Enum(['added', 'modified', 'deleted', 'renamed']),
  from: Type.Optional(Type.String({ description: 'The old path of a renamed file' })),
  additions: Type.Integer(),
  deletions: Type.Integer(),
});

const Output = Type.Object({
  files: Type.Array(FileResult),
  dryRun: Type.Boolean(),
});

export default defineTool({
  name: 'apply_patch',
  category: 'edit',
  description:
    'Apply a unified diff that may touch several files, including new, deleted and renamed files. All ' +
    'files change or none: if a hunk does not fit, nothing is written and the error names the file and ' +
    'hunk, with the closest text. Hunks may sit at other line numbers than their headers say. Line endings ' +
    'and BOM of existing files are kept. The whole patch is one undo_edit step.',
  capabilities: { readsFiles: true, writesFiles: true, destructive: true, idempotent: false },
  input: Input,
  output: Output,
  examples: [
    {
      patch: '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,1 +1,1 @@\n-let a = 1;\n+const a = 1;\n',
      dry_run: false,
    },
  ],
  async execute(input, ctx) {
    const patches = parseUnifiedDiff(input.patch);
    const targets = await Promise.all(
      patches.flatMap((p) =>
        [p.oldFileName, p.newFileName]
          .filter((name) => name && name !== '/dev/null')
          .map((name) => ctx.workspace.resolve(name.replace(/^[ab]\//, ''))),
      ),
    );
    return ctx.services.fileLocks.run(
      targets.map((t) => lockKey(ctx, t.relative)),
      async () => {
        const plans = [];
        const expected = Object.fromEntries(
          Object.entries(input.expected_sha256 ?? {}).map(([key, hash]) => [
            path.posix.normalize(key.replace(/^\/+/, '')),
            hash,
          ]),
        );
        for (const patch of patches) plans.push(await planFile(ctx, patch, expected));
        const touched = new Set(plans.map((p) => (p.from ?? p.target).relative));
        const unknown = Object.keys(expected).filter((key) => !touched.has(key));
        if (unknown.length) {
          throw toolgateError(
            'BAD_REQUEST',
            `expected_sha256 names files the patch does not change: ${unknown.join(', ')}`,
          );
        }
        const written = plans.flatMap((p) => p.writes.map((w) => w.relative));
        if (new Set(written).size !== written.length) {
          throw toolgateError('PATCH_FAILED', 'The patch changes the same file more than once', {
            suggestion: 'Merge the hunks of each file under one ---/+++ header.',
          });
        }
        if (!input.dry_run)
          await commitWrites(
            ctx,
            'apply_patch',
            plans.flatMap((p) => p.writes),
          );
        return {
          files: plans.map((p) => ({
            path: p.target.relative,
            status: p.status,
            ...(p.from ? { from: p.from.relative } : {}),
            additions: p.additions,
            deletions: p.deletions,
          })),
          dryRun: input.dry_run,
        };
      },
    );
  },
  render: (data) =>
    `${data.dryRun ? 'Patch applies (dry run)' : 'Patched'}:\n` +
    data.files
      .map(
        (f) =>
          `  ${f.status.padEnd(8)} ${f.from ? `${f.from} → ` : ''}${f.path} (+${f.additions} -${f.deletions})`,
      )
      .join('\n'),
});
