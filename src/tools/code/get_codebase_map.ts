// get_codebase_map: a ranked outline of the repository within a token budget — files ordered by PageRank
// over the reference graph (as aider's repo map), each with its definitions' signatures.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { buildRepoMap, renderMapFile } from '../../code/repo-map.js';
import { DefinitionKindSchema } from '../../code/schema.js';
import { codeSnapshot, IndexInfoSchema, indexInfo, resolveScope } from '../../code/tool-shared.js';

const Input = Type.Object(
  {
    path: Type.String({ minLength: 1, default: '.', description: 'Directory to map' }),
    max_tokens: Type.Integer({
      minimum: 64,
      maximum: 32_000,
      default: 2048,
      description: 'Budget for the rendered map (about 4 characters per token)',
    }),
    focus_files: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      maxItems: 100,
      description: 'Files you are working on; they and what they use rank higher',
    }),
    focus_symbols: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      maxItems: 100,
      description: 'Symbol names of interest; their files and users rank higher',
    }),
    max_definitions_per_file: Type.Integer({ minimum: 1, maximum: 200, default: 30 }),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  path: Type.String(),
  files: Type.Array(
    Type.Object({
      path: Type.String(),
      rank: Type.Number({ description: 'PageRank score (sums to 1 over all files)' }),
      definitions: Type.Array(
        Type.Object({
          name: Type.String(),
          kind: DefinitionKindSchema,
          line: Type.Integer(),
          signature: Type.String(),
          container: Type.Optional(Type.String()),
        }),
      ),
      omittedDefinitions: Type.Integer(),
    }),
  ),
  totalFiles: Type.Integer(),
  tokens: Type.Integer({ description: 'Estimated tokens of the rendered map' }),
  truncated: Type.Boolean({ description: 'More files exist than fit the budget' }),
  index: IndexInfoSchema,
});

export default defineTool({
  name: 'get_codebase_map',
  category: 'code',
  description:
    'A map of the codebase for orientation: the most important files first (ranked by how much the rest ' +
    'of the code refers to them, PageRank over the reference graph, like aider’s repo map), each with the ' +
    'signatures of its classes, functions and methods, cut to max_tokens. Pass focus_files / ' +
    'focus_symbols to rank their neighbourhood higher. Start here in an unfamiliar repository.',
  capabilities: { readsFiles: true, idempotent: true },
  input: Input,
  output: Output,
  examples: [
    { path: '.', max_tokens: 1024, focus_files: [], focus_symbols: [], max_definitions_per_file: 30 },
  ],
  async execute(input, ctx) {
    const scope = await resolveScope(ctx, input.path);
    const focusFiles = [];
    for (const file of input.focus_files) focusFiles.push((await ctx.workspace.resolve(file)).relative);
    const snapshot = await codeSnapshot(ctx);
    const map = buildRepoMap(snapshot, {
      scope: scope.relative,
      include: scope.include,
      focusFiles,
      focusSymbols: input.focus_symbols,
      maxTokens: input.max_tokens,
      maxDefinitionsPerFile: input.max_definitions_per_file,
    });
    return { path: scope.relative, ...map, index: indexInfo(snapshot) };
  },
  render(data) {
    const body = data.files.map(renderMapFile).join('\n\n');
    const tail = data.truncated
      ? `\n\n(${data.totalFiles - data.files.length} more files; raise max_tokens or map a subdirectory)`
      : '';
    return (body || '(no source files)') + tail;
  },
});
