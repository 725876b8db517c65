// search_code: finds symbol definitions by name across the workspace (fuzzy or exact), filtered by kind,
// language and path, from the tree-sitter index.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { DefinitionKindSchema, LanguageSchema } from '../../code/schema.js';
import { fuzzyScore } from '../../code/fuzzy.js';
import { codeSnapshot, IndexInfoSchema, indexInfo, resolveScope } from '../../code/tool-shared.js';

const Input = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 200, description: 'Symbol name or part of it' }),
    match: Type.Enum(['fuzzy', 'exact'], {
      default: 'fuzzy',
      description: 'fuzzy: substring or in-order letters (ranked); exact: the whole name, case-sensitive',
    }),
    kinds: Type.Array(DefinitionKindSchema, {
      default: [],
      description: 'Only these kinds (function, method, class, interface, …); empty = all',
    }),
    languages: Type.Array(LanguageSchema, { default: [], description: 'Only these languages; empty = all' }),
    path: Type.String({ minLength: 1, default: '.', description: 'Directory or file to search in' }),
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'Maximum matches returned' }),
  },
  { additionalProperties: false },
);

const Match = Type.Object({
  path: Type.String(),
  name: Type.String(),
  kind: DefinitionKindSchema,
  line: Type.Integer(),
  endLine: Type.Integer(),
  signature: Type.String(),
  container: Type.Optional(Type.String()),
  language: LanguageSchema,
  score: Type.Integer({ description: 'Match quality; higher is better' }),
});

const Output = Type.Object({
  query: Type.String(),
  matches: Type.Array(Match),
  total: Type.Integer({ description: 'Matches before the limit' }),
  truncated: Type.Boolean(),
  index: IndexInfoSchema,
});

export default defineTool({
  name: 'search_code',
  category: 'code',
  description:
    'Find where symbols (functions, methods, classes, interfaces, types, constants…) are defined, by name. ' +
    'Fuzzy matching ranks exact > prefix > substring > in-order letters ("usrSvc" finds UserService). ' +
    'Languages: TypeScript, TSX, JavaScript, Python, Go, Rust, Java. Faster and more precise than grep ' +
    'for definitions; use find_references for the places a symbol is used.',
  capabilities: { readsFiles: true, idempotent: true },
  input: Input,
  output: Output,
  examples: [{ query: 'UserService', match: 'fuzzy', kinds: ['class'], languages: [], path: '.', limit: 20 }],
  async execute(input, ctx) {
    const scope = await resolveScope(ctx, input.path);
    const snapshot = await codeSnapshot(ctx);
    const kinds = new Set(input.kinds);
    const languages = new Set(input.languages);
    const candidates =
      input.match === 'exact'
        ? [[input.query, 1000] as const]
        : snapshot
            .names()
            .map((name) => [name, fuzzyScore(name, input.query)] as const)
            .filter(([, score]) => score > 0);
    const matches = [];
    for (const [name, score] of candidates) {
      for (const { file, definition } of snapshot.definitionsOf(name)) {
        if (!scope.include(file.path)) continue;
        if (kinds.size && !kinds.has(definition.kind)) continue;
        if (languages.size && !languages.has(file.language)) continue;
        matches.push({
          path: file.path,
          name: definition.name,
          kind: definition.kind,
          line: definition.line,
          endLine: definition.endLine,
          signature: definition.signature,
          ...(definition.container ? { container: definition.container } : {}),
          language: file.language,
          // Exported top-level definitions are what a caller usually looks for.
          score: score + (definition.exported ? 2 : 0) + (definition.container ? 0 : 1),
        });
      }
    }
    matches.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path) || a.line - b.line);
    return {
      query: input.query,
      matches: matches.slice(0, input.limit),
      total: matches.length,
      truncated: matches.length > input.limit,
      index: indexInfo(snapshot),
    };
  },
  render(data) {
    if (!data.matches.length) return `No definitions match "${data.query}".`;
    const lines = data.matches.map(
      (m) =>
        `${m.path}:${m.line}: ${m.kind} ${m.container ? `${m.container}.` : ''}${m.name} — ${m.signature}`,
    );
    if (data.truncated)
      lines.push(`(${data.total - data.matches.length} more; narrow with kinds, path or a longer query)`);
    return lines.join('\n');
  },
});
