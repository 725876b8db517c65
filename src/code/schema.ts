// Shapes of what the code index extracts per file; tool outputs reuse these schemas, types come from them.
import { Type, type Static } from 'typebox';
import { LANGUAGE_IDS } from './languages.js';

export const LanguageSchema = Type.Enum([...LANGUAGE_IDS], { description: 'Source language' });

export const DEFINITION_KINDS = [
  'function',
  'method',
  'constructor',
  'class',
  'interface',
  'trait',
  'struct',
  'enum',
  'type',
  'constant',
  'variable',
  'field',
  'module',
  'macro',
] as const;
export const DefinitionKindSchema = Type.Enum([...DEFINITION_KINDS]);

export const REFERENCE_KINDS = ['call', 'class', 'type', 'implementation', 'macro', 'name'] as const;
export const ReferenceKindSchema = Type.Enum([...REFERENCE_KINDS]);

export const DefinitionSchema = Type.Object({
  name: Type.String(),
  kind: DefinitionKindSchema,
  line: Type.Integer({ description: 'Line of the name (1-based)' }),
  startLine: Type.Integer({ description: 'First line of the whole definition' }),
  endLine: Type.Integer({ description: 'Last line of the whole definition (end of the body)' }),
  signature: Type.String({ description: 'The declaration up to its body, whitespace collapsed' }),
  doc: Type.Optional(Type.String({ description: 'Doc comment or docstring, markers stripped' })),
  container: Type.Optional(Type.String({ description: 'Enclosing class, impl, trait or interface' })),
  exported: Type.Boolean({ description: 'Visible outside its module by the language rules' }),
});
export type Definition = Static<typeof DefinitionSchema>;

export const ReferenceSchema = Type.Object({
  name: Type.String(),
  kind: ReferenceKindSchema,
  line: Type.Integer(),
  column: Type.Integer({ description: '1-based column of the name' }),
  qualifier: Type.Optional(Type.String({ description: 'The object of a qualified use: "ns" in ns.name' })),
});
export type Reference = Static<typeof ReferenceSchema>;

export const ImportBindingSchema = Type.Object({
  local: Type.String({ description: 'Name bound in the importing file' }),
  imported: Type.String({ description: 'Name in the source module; "default", or "*" for the whole module' }),
});
export type ImportBinding = Static<typeof ImportBindingSchema>;

export const ImportSchema = Type.Object({
  source: Type.String({ description: 'Module specifier as written (path, package or module name)' }),
  line: Type.Integer(),
  bindings: Type.Array(ImportBindingSchema),
  reexport: Type.Boolean({ description: 'An export … from: the names are passed on, not used here' }),
  scope: Type.Optional(
    Type.Object(
      { startLine: Type.Integer(), endLine: Type.Integer() },
      { description: 'A function-level import: the lines of the function whose names it binds' },
    ),
  ),
});
export type ImportRecord = Static<typeof ImportSchema>;

export const ExportSchema = Type.Object({
  name: Type.String({ description: 'Exported name ("default" for a default export, "*" for export *)' }),
  local: Type.Optional(Type.String({ description: 'The local or source name when it differs' })),
  line: Type.Integer(),
  source: Type.Optional(Type.String({ description: 'Re-exported from this module' })),
});
export type ExportRecord = Static<typeof ExportSchema>;

/** Everything the index keeps for one file. */
export interface FileSummary {
  readonly path: string;
  readonly language: Static<typeof LanguageSchema>;
  readonly lines: number;
  readonly definitions: Definition[];
  readonly references: Reference[];
  readonly imports: ImportRecord[];
  readonly exports: ExportRecord[];
  /** Go's package clause / Java's package declaration, when there is one. */
  readonly packageName?: string;
}
