// edit_file: replace one exact (or, failing that, uniquely fuzzy-matched) piece of a file.
import { Type } from 'typebox';
import {
  DiagnosticsSwitch,
  EditDiagnostics,
  renderEditDiagnostics,
  withEditDiagnostics,
} from '../../code/lsp/edit-diagnostics.js';
import { defineTool } from '../../contract/tool.js';
import { ExpectedSha256 } from '../../edit/file-guard.js';
import { EditResult, renderEdit, runTextEdits } from '../../edit/text-edit.js';

const Input = Type.Object(
  {
    path: Type.String({ minLength: 1, description: 'File path, relative to the workspace root' }),
    old_string: Type.String({
      description:
        'The text to replace, copied from the file with enough context to be unique. Empty only to give an empty or missing file its first content.',
    }),
    new_string: Type.String({ description: 'The replacement text; `$` sequences are literal' }),
    replace_all: Type.Boolean({
      default: false,
      description: 'Replace every occurrence instead of requiring exactly one',
    }),
    dry_run: Type.Boolean({ default: false, description: 'Return the diff without writing' }),
    expected_sha256: ExpectedSha256,
    diagnostics: DiagnosticsSwitch,
  },
  { additionalProperties: false },
);

export default defineTool({
  name: 'edit_file',
  category: 'edit',
  description:
    'Replace old_string with new_string in a file. old_string must match exactly one place (or pass ' +
    'replace_all). When there is no exact match, a strict cascade of fuzzy rules (surrounding whitespace, ' +
    'indentation, trimmed lines, whitespace runs, over-escaped text, first/last-line anchors with 80% ' +
    'similarity) is tried and used only when it finds one place; the result names the rule in `strategy`. ' +
    'Not found → 422 with the closest text; several matches → 409 with their line numbers. Line endings, ' +
    'BOM and file mode are kept. Returns a unified diff; dry_run only shows it.',
  capabilities: { readsFiles: true, writesFiles: true, destructive: true, idempotent: false },
  input: Input,
  output: Type.Object({ ...EditResult.properties, diagnostics: EditDiagnostics }),
  examples: [
    {
      path: 'src/app.ts',
      old_string: 'const port = 3000;',
      new_string: 'const port = 8080;',
      replace_all: false,
      dry_run: false,
    },
  ],
  async execute(input, ctx) {
    const { path, dry_run, expected_sha256, diagnostics, ...edit } = input;
    return withEditDiagnostics(
      ctx,
      { enabled: diagnostics, dryRun: dry_run, paths: [path] },
      () => runTextEdits(ctx, 'edit_file', { path, dry_run, expected_sha256, edits: [edit] }),
      (result) => [{ path: result.path }],
    );
  },
  render: (data) => renderEdit(data) + renderEditDiagnostics(data.diagnostics),
});
