// find_references: where a symbol is used — calls, constructions, type uses, inheritance — across the
// workspace; uses that the using file's imports tie to the definition are marked `resolved`.
import { Type } from 'typebox';
import { toolgateError } from '../../lib/errors.js';
import { defineTool } from '../../contract/tool.js';
import { findUses, targetKey } from '../../code/references.js';
import { ReferenceKindSchema } from '../../code/schema.js';
import { SymbolResolver } from '../../code/symbol-resolver.js';
import { cutLine } from '../../lib/text.js';
import {
  codeSnapshot,
  definitionLine,
  findDefinitions,
  IndexInfoSchema,
  indexInfo,
  LocatedDefinitionSchema,
  moduleResolver,
  resolveScope,
  SymbolNameSchema,
  SymbolPathSchema,
  AnswerSourceSchema,
  SYNTAX_SOURCE,
  LSP_SOURCE,
} from '../../code/tool-shared.js';
import { referencesFromLsp } from '../../code/lsp/tool-answers.js';
import { readFiles } from '../../runtime/read-files.js';

/** Files larger than this show no line text. */
const MAX_REFERENCE_FILE_BYTES = 4 * 1024 * 1024;

const Input = Type.Object(
  {
    name: SymbolNameSchema,
    path: Type.Optional(SymbolPathSchema),
    scope: Type.String({ minLength: 1, default: '.', description: 'Directory or file to search for uses' }),
    include_unresolved: Type.Boolean({
      default: true,
      description: 'Also list same-named uses that imports do not tie to the definition (e.g. obj.method())',
    }),
    limit: Type.Integer({
      minimum: 1,
      maximum: 2000,
      default: 200,
      description: 'Maximum references returned',
    }),
  },
  { additionalProperties: false },
);

const Reference = Type.Object({
  path: Type.String(),
  line: Type.Integer(),
  column: Type.Integer(),
  kind: ReferenceKindSchema,
  confidence: Type.Enum(['resolved', 'name'], {
    description:
      'resolved: the file’s own definitions or imports lead to the definition; name: same name only',
  }),
  text: Type.String({ description: 'The line, trimmed' }),
});

const Output = Type.Object({
  name: Type.String(),
  source: AnswerSourceSchema,
  definitions: Type.Array(LocatedDefinitionSchema),
  references: Type.Array(Reference),
  total: Type.Integer(),
  truncated: Type.Boolean(),
  index: IndexInfoSchema,
});

export default defineTool({
  name: 'find_references',
  category: 'code',
  description:
    'Find the uses of a symbol: call sites, `new`, type annotations, extends/implements, arguments. Each ' +
    'use says whether the using file’s imports (or own definitions) tie it to the definition (`resolved`) ' +
    'or it only has the same name (`name`, e.g. a method called on an object). Give `path` to pick the ' +
    'definition when several share the name.',
  capabilities: { readsFiles: true, idempotent: true },
  input: Input,
  output: Output,
  examples: [{ name: 'createUser', scope: '.', include_unresolved: true, limit: 100 }],
  async execute(input, ctx) {
    const scope = await resolveScope(ctx, input.scope);
    const snapshot = await codeSnapshot(ctx);
    const resolver = new SymbolResolver(snapshot, await moduleResolver(ctx, snapshot));
    const [head, ...rest] = input.name.split('.');
    const last = rest.length ? rest[rest.length - 1] : head;

    const definitions = await findDefinitions(ctx, snapshot, input.name, input.path);
    if (input.path !== undefined && !definitions.length) {
      throw toolgateError('NOT_FOUND', `No definition of "${input.name}" is visible from ${input.path}`, {
        suggestion: 'Leave out path to list every use of the name.',
      });
    }
    const syntaxUses = findUses(snapshot, resolver, {
      name: last,
      targets: new Set(definitions.map((d) => targetKey(d.path, d.line))),
      include: scope.include,
      includeUnresolved: input.include_unresolved,
    });
    const lspUses = await referencesFromLsp(ctx, definitions, last, scope.include, syntaxUses);
    const found = lspUses ?? syntaxUses;
    const shown = found.slice(0, input.limit);
    // The lines come from the files as they are now, all read in one runtime round trip.
    const files = [...new Set(shown.map((ref) => ref.path))];
    const contents = await readFiles(ctx.workspace, files, MAX_REFERENCE_FILE_BYTES);
    const texts = new Map(files.map((file, i) => [file, (contents[i]?.toString('utf8') ?? '').split('\n')]));
    const references = shown.map((ref) => ({
      ...ref,
      text: cutLine((texts.get(ref.path)?.[ref.line - 1] ?? '').trim(), 200).text,
    }));
    return {
      name: input.name,
      source: lspUses ? LSP_SOURCE : SYNTAX_SOURCE,
      definitions,
      references,
      total: found.length,
      truncated: found.length > shown.length,
      index: indexInfo(snapshot),
    };
  },
  render(data) {
    const lines = data.definitions.map((d) => `defined: ${definitionLine(d)}`);
    if (!data.references.length) lines.push(`No references to ${data.name}.`);
    for (const r of data.references) {
      lines.push(
        `${r.path}:${r.line}:${r.column}: ${r.text}${r.confidence === 'name' ? '  (same name)' : ''}`,
      );
    }
    if (data.truncated)
      lines.push(`(${data.total - data.references.length} more; raise limit or narrow scope)`);
    return lines.join('\n');
  },
});
