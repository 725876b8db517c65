// multi_edit: several edits to one file, applied in order in memory and written once — all or none.
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

const EditItem = Type.Object(
  {
    old_string: Type.String({ description: 'Text to replace (as the file reads after the previous edits)' }),
    new_string: Type.String({ description: 'Replacement text; `$` sequences are literal' }),
    replace_all: Type.Boolean({ default: false, description: 'Replace every occurrence' }),
  },
  { additionalProperties: false },
);

const Input = Type.Object(
  {
    path: Type.String({ minLength: 1, description: 'File path, relative to the workspace root' }),
    edits: Type.Array(EditItem, {
      minItems: 1,
      maxItems: 100,
      description: 'Applied in order; each sees the result of the previous one',
    }),
    dry_run: Type.Boolean({ default: false, description: 'Return the diff without writing' }),
    expected_sha256: ExpectedSha256,
    diagnostics: DiagnosticsSwitch,
  },
  { additionalProperties: false },
);

export default defineTool({
  name: 'multi_edit',
  category: 'edit',
  description:
    'Apply several edit_file-style edits to one file in order. Either every edit applies and the file is ' +
    'written once, or nothing is written and the error names the failing edit (details.edit). Same ' +
    'matching rules, errors and result as edit_file.',
  capabilities: { readsFiles: true, writesFiles: true, destructive: true, idempotent: false },
  input: Input,
  output: Type.Object({ ...EditResult.properties, diagnostics: EditDiagnostics }),
  examples: [
    {
      path: 'src/app.ts',
      edits: [
        { old_string: 'let a = 1;', new_string: 'const a = 1;', replace_all: false },
        { old_string: 'let b = 2;', new_string: 'const b = 2;', replace_all: false },
      ],
      dry_run: false,
    },
  ],
  async execute(input, ctx) {
    const { diagnostics, ...request } = input;
    return withEditDiagnostics(
      ctx,
      { enabled: diagnostics, dryRun: input.dry_run, paths: [input.path] },
      () => runTextEdits(ctx, 'multi_edit', request),
      (result) => [{ path: result.path }],
    );
  },
  render: (data) => renderEdit(data) + renderEditDiagnostics(data.diagnostics),
});
