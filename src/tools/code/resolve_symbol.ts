// resolve_symbol: from a name used in a file to its definition, following the file's imports (and
// re-exports further along) for TS/JS, Python, Go, Rust and Java.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { SymbolResolver } from '../../code/symbol-resolver.js';
import {
  codeSnapshot,
  definitionLine,
  indexedFile,
  IndexInfoSchema,
  indexInfo,
  locate,
  LocatedDefinitionSchema,
  moduleResolver,
  AnswerSourceSchema,
  SYNTAX_SOURCE,
  LSP_SOURCE,
} from '../../code/tool-shared.js';
import { definitionsFromLsp } from '../../code/lsp/tool-answers.js';

const Input = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 300,
      description: 'The name as written in the file: "helper", "ns.fn", "models.User", "Class.method"',
    }),
    path: Type.String({ minLength: 1, description: 'The file where the name is used' }),
    line: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'The line of the use: an import inside the function there shadows a module-level name',
      }),
    ),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  name: Type.String(),
  source: AnswerSourceSchema,
  path: Type.String(),
  resolution: Type.Enum(['local', 'import', 'name-match', 'unresolved'], {
    description:
      'local: defined in the file; import: followed through imports; name-match: no import explains it, ' +
      'these are the workspace definitions with that name; unresolved: nothing found',
  }),
  definitions: Type.Array(LocatedDefinitionSchema),
  modules: Type.Array(Type.String(), { description: 'Files the name stands for as a whole module' }),
  chain: Type.Array(
    Type.Object({
      path: Type.String(),
      line: Type.Integer(),
      via: Type.Enum(['import', 're-export']),
      source: Type.String(),
    }),
    { description: 'The imports and re-exports followed, in order' },
  ),
  index: IndexInfoSchema,
});

export default defineTool({
  name: 'resolve_symbol',
  category: 'code',
  description:
    'Go to definition: given a name as used in a file, find where it is defined. Local definitions win; ' +
    'otherwise the file’s imports are followed (relative TS/JS imports with index files and .js→.ts, ' +
    'Python packages and relative imports, Go packages via go.mod, Rust crate/self/super paths, Java ' +
    'imports), through re-exports. Falls back to definitions with the same name, saying so.',
  capabilities: { readsFiles: true, idempotent: true },
  input: Input,
  output: Output,
  examples: [{ name: 'createUser', path: 'src/routes/users.ts' }],
  async execute(input, ctx) {
    const snapshot = await codeSnapshot(ctx);
    const file = await indexedFile(ctx, snapshot, input.path);
    const resolver = new SymbolResolver(snapshot, await moduleResolver(ctx, snapshot));
    const fromLsp = await definitionsFromLsp(ctx, snapshot, file.path, input.name, input.line);
    if (fromLsp) {
      return {
        name: input.name,
        source: LSP_SOURCE,
        path: file.path,
        resolution: fromLsp.every((d) => d.path === file.path) ? ('local' as const) : ('import' as const),
        definitions: fromLsp,
        modules: [],
        chain: [],
        index: indexInfo(snapshot),
      };
    }
    const result = resolver.resolve(file, input.name, input.line);
    return {
      name: input.name,
      source: SYNTAX_SOURCE,
      path: file.path,
      resolution: result.resolution,
      definitions: result.targets.flatMap((t) => (t.definition ? [locate(t.path, t.definition)] : [])),
      modules: result.targets.filter((t) => !t.definition).map((t) => t.path),
      chain: result.chain,
      index: indexInfo(snapshot),
    };
  },
  render(data) {
    if (data.resolution === 'unresolved') return `${data.name} (in ${data.path}): no definition found`;
    const lines = [`${data.name} (in ${data.path}) → ${data.resolution}`];
    for (const step of data.chain)
      lines.push(`  via ${step.via} "${step.source}" at ${step.path}:${step.line}`);
    for (const d of data.definitions) lines.push(definitionLine(d));
    for (const m of data.modules) lines.push(`${m} (module)`);
    return lines.join('\n');
  },
});
