// get_imports_exports: a source file's imports (with the workspace files they resolve to) and exports.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { ExportSchema, ImportSchema, LanguageSchema } from '../../code/schema.js';
import {
  codeSnapshot,
  indexedFile,
  IndexInfoSchema,
  indexInfo,
  moduleResolver,
} from '../../code/tool-shared.js';

const Input = Type.Object(
  { path: Type.String({ minLength: 1, description: 'Source file, relative to the workspace root' }) },
  { additionalProperties: false },
);

const Output = Type.Object({
  path: Type.String(),
  language: LanguageSchema,
  imports: Type.Array(
    Type.Object({
      ...ImportSchema.properties,
      resolved: Type.Array(Type.String(), { description: 'Workspace files it loads; empty = external' }),
    }),
  ),
  exports: Type.Array(ExportSchema),
  importedBy: Type.Array(Type.String(), { description: 'Workspace files that import this one' }),
  index: IndexInfoSchema,
});

export default defineTool({
  name: 'get_imports_exports',
  category: 'code',
  description:
    'What a source file imports (module, names and aliases, line, and the workspace file each import ' +
    'resolves to, empty for packages and the standard library), what it exports (explicit exports for ' +
    'TS/JS; public/capitalised/non-underscore top-level names for Java/Rust, Go, Python), and which ' +
    'workspace files import it.',
  capabilities: { readsFiles: true, idempotent: true },
  input: Input,
  output: Output,
  examples: [{ path: 'src/index.ts' }],
  async execute(input, ctx) {
    const snapshot = await codeSnapshot(ctx);
    const file = await indexedFile(ctx, snapshot, input.path);
    const resolver = await moduleResolver(ctx, snapshot);
    const importedBy = snapshot.files
      .filter((other) => other.path !== file.path)
      .filter((other) => other.imports.some((i) => resolver.resolve(other, i.source).includes(file.path)))
      .map((other) => other.path);
    return {
      path: file.path,
      language: file.language,
      imports: file.imports.map((i) => ({ ...i, resolved: resolver.resolve(file, i.source) })),
      exports: file.exports,
      importedBy,
      index: indexInfo(snapshot),
    };
  },
  render(data) {
    const lines = [`${data.path} (${data.language})`, 'imports:'];
    for (const i of data.imports) {
      const names = i.bindings
        .map((b) => (b.imported === b.local ? b.local : `${b.imported} as ${b.local}`))
        .join(', ');
      const target = i.resolved.length ? ` → ${i.resolved.join(', ')}` : ' (external)';
      lines.push(
        `  ${i.line}: ${i.reexport ? 're-export ' : ''}${i.source}${names ? ` {${names}}` : ''}${target}`,
      );
    }
    lines.push('exports:');
    for (const e of data.exports) {
      lines.push(
        `  ${e.line}: ${e.name}${e.local ? ` (= ${e.local})` : ''}${e.source ? ` from ${e.source}` : ''}`,
      );
    }
    lines.push(`imported by: ${data.importedBy.length ? data.importedBy.join(', ') : '(none)'}`);
    return lines.join('\n');
  },
});
