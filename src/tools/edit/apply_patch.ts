// apply_patch: a V4A patch (OpenAI's format) or a unified diff over one or more files (changes, new files,
// deletions, renames), applied all or nothing: every hunk is checked before the first byte is written,
// and a failed write rolls back. The format is read from the text (src/edit/patch-text.ts).
import path from 'node:path';
import { Type } from 'typebox';
import { toolgateError } from '../../lib/errors.js';
import {
  DiagnosticsSwitch,
  EditDiagnostics,
  renderEditDiagnostics,
  withEditDiagnostics,
} from '../../code/lsp/edit-diagnostics.js';
import { defineTool } from '../../contract/tool.js';
import { commitWrites } from '../../edit/file-commit.js';
import { lockKey } from '../../edit/file-guard.js';
import { parsePatchText } from '../../edit/patch-text.js';
import { MATCH_LEVELS } from '../../edit/v4a-apply.js';

const Input = Type.Object(
  {
    patch: Type.String({
      minLength: 1,
      description:
        'A V4A patch ("*** Begin Patch" … "*** End Patch") or a unified diff (git diff or diff -u)',
    }),
    dry_run: Type.Boolean({ default: false, description: 'Check that every hunk applies without writing' }),
    expected_sha256: Type.Optional(
      Type.Record(Type.String(), Type.String({ pattern: '^[0-9a-fA-F]{64}$' }), {
        description:
          'Compare-and-swap per file: { "path": "<sha256 as you last saw it>" }; 409 if a file differs',
      }),
    ),
    diagnostics: DiagnosticsSwitch,
  },
  { additionalProperties: false },
);

const FileResult = Type.Object({
  path: Type.String(),
  status: Type.Enum(['added', 'modified', 'deleted', 'renamed']),
  from: Type.Optional(Type.String({ description: 'The old path of a renamed file' })),
  additions: Type.Integer(),
  deletions: Type.Integer(),
  match: Type.Optional(
    Type.Enum([...MATCH_LEVELS], {
      description: 'V4A updates: how loosely the chunks matched (exact, or the whitespace/punctuation rule)',
    }),
  ),
});

const Output = Type.Object({
  format: Type.Enum(['v4a', 'unified'], { description: 'The patch format read from the text' }),
  files: Type.Array(FileResult),
  dryRun: Type.Boolean(),
  diagnostics: EditDiagnostics,
});

const MATCH_NOTES = {
  exact: '',
  trailing_whitespace: 'trailing whitespace',
  whitespace: 'indentation and trailing whitespace',
  unicode: 'whitespace and typographic punctuation',
} as const;

export default defineTool({
  name: 'apply_patch',
  category: 'edit',
  description:
    'Apply a patch that may touch several files, including new, deleted and moved files: a V4A patch ' +
    '("*** Begin Patch", "*** Add File: p" with "+" lines, "*** Delete File: p", "*** Update File: p" with ' +
    'optional "*** Move to: q", "@@ <line above the change>" hints and " "/"-"/"+" lines, "*** End Patch") ' +
    'or a unified diff. All files change or none: if a chunk does not fit, nothing is written and the error ' +
    'names the file and chunk, with the closest text; a chunk matching two places is refused with both. ' +
    'V4A lines match exactly, else ignoring whitespace or typographic punctuation. Line endings and BOM ' +
    'of existing files are kept. The whole patch is one undo_edit step.',
  capabilities: { readsFiles: true, writesFiles: true, destructive: true, idempotent: false },
  input: Input,
  output: Output,
  examples: [
    {
      patch:
        '*** Begin Patch\n*** Update File: src/a.ts\n@@ export function main() {\n-  let a = 1;\n+  const a = 1;\n*** End Patch\n',
      dry_run: false,
    },
    {
      patch: '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,1 +1,1 @@\n-let a = 1;\n+const a = 1;\n',
      dry_run: false,
    },
  ],
  async execute(input, ctx) {
    const patch = parsePatchText(input.patch);
    const targets = await Promise.all(patch.paths.map((name) => ctx.workspace.resolve(name)));
    const apply = () =>
      ctx.services.fileLocks.run(
        targets.map((t) => lockKey(ctx, t.relative)),
        async () => {
          const expected = Object.fromEntries(
            Object.entries(input.expected_sha256 ?? {}).map(([key, hash]) => [
              path.posix.normalize(key.replace(/^\/+/, '')),
              hash,
            ]),
          );
          const plans = await patch.plan(ctx, expected);
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
              suggestion:
                patch.format === 'v4a'
                  ? 'Put all chunks of a file under one "*** Update File:" header, in file order.'
                  : 'Merge the hunks of each file under one ---/+++ header.',
            });
          }
          if (!input.dry_run)
            await commitWrites(
              ctx,
              'apply_patch',
              plans.flatMap((p) => p.writes),
            );
          return {
            format: patch.format,
            files: plans.map((p) => ({
              path: p.target.relative,
              status: p.status,
              ...(p.from ? { from: p.from.relative } : {}),
              additions: p.additions,
              deletions: p.deletions,
              ...(p.match ? { match: p.match } : {}),
            })),
            dryRun: input.dry_run,
          };
        },
      );
    return withEditDiagnostics(
      ctx,
      { enabled: input.diagnostics, dryRun: input.dry_run, paths: targets.map((t) => t.relative) },
      apply,
      (result) =>
        result.files.filter((f) => f.status !== 'deleted').map((f) => ({ path: f.path, from: f.from })),
    );
  },
  render: (data) =>
    `${data.dryRun ? 'Patch applies (dry run)' : 'Patched'}:\n` +
    data.files
      .map(
        (f) =>
          `  ${f.status.padEnd(8)} ${f.from ? `${f.from} → ` : ''}${f.path} (+${f.additions} -${f.deletions})` +
          (f.match && f.match !== 'exact' ? ` [matched ignoring ${MATCH_NOTES[f.match]}]` : ''),
      )
      .join('\n') +
    renderEditDiagnostics(data.diagnostics),
});
