// get_symbol_info: a symbol's definition — location, signature, doc comment, body range — by name, or as
// seen from a file that uses it (then imports are followed to the right definition).
import { Type } from 'typebox';
import { toolgateError } from '../../lib/errors.js';
import { defineTool } from '../../contract/tool.js';
import { DefinitionKindSchema } from '../../code/schema.js';
import {
  codeSnapshot,
  definitionLine,
  findDefinitions,
  IndexInfoSchema,
  indexInfo,
  LocatedDefinitionSchema,
  SymbolNameSchema,
  SymbolPathSchema,
  AnswerSourceSchema,
  SYNTAX_SOURCE,
  LSP_SOURCE,
} from '../../code/tool-shared.js';
import { hoversFromLsp } from '../../code/lsp/tool-answers.js';
import { readFiles } from '../../runtime/read-files.js';

const Input = Type.Object(
  {
    name: SymbolNameSchema,
    path: Type.Optional(SymbolPathSchema),
    kind: Type.Optional(DefinitionKindSchema),
    include_source: Type.Boolean({ default: false, description: 'Also return the definition’s source text' }),
  },
  { additionalProperties: false },
);

const SymbolInfo = Type.Object({
  ...LocatedDefinitionSchema.properties,
  source: Type.Optional(Type.String({ description: 'Lines startLine..endLine (at most 200 lines)' })),
  hover: Type.Optional(
    Type.String({ description: 'The language server’s type and docs for it (when source is lsp)' }),
  ),
});

const Output = Type.Object({
  name: Type.String(),
  source: AnswerSourceSchema,
  symbols: Type.Array(SymbolInfo),
  index: IndexInfoSchema,
});

const MAX_SOURCE_LINES = 200;
/** Hover texts longer than this are cut (some servers include whole doc pages). */
const MAX_HOVER_CHARS = 4000;
const cutHover = (text: string) =>
  text.length > MAX_HOVER_CHARS ? `${text.slice(0, MAX_HOVER_CHARS)}\n…` : text;

export default defineTool({
  name: 'get_symbol_info',
  category: 'code',
  description:
    'Details of a symbol’s definition: file, line, kind, signature, doc comment or docstring, the line ' +
    'range of its body, its container (class/impl), and whether it is exported. Give `path` (a file that ' +
    'uses the name) to follow that file’s imports to the one definition it means. include_source returns ' +
    'the body text.',
  capabilities: { readsFiles: true, idempotent: true },
  input: Input,
  output: Output,
  examples: [{ name: 'UserService.create', include_source: false }],
  async execute(input, ctx) {
    const snapshot = await codeSnapshot(ctx);
    const found = await findDefinitions(ctx, snapshot, input.name, input.path);
    const symbols = found.filter((d) => !input.kind || d.kind === input.kind);
    if (!symbols.length) {
      throw toolgateError('NOT_FOUND', `No definition of "${input.name}" found`, {
        suggestion: 'Try search_code with match "fuzzy" to find similar names.',
      });
    }
    if (input.include_source) {
      const files = [...new Set(symbols.map((s) => s.path))];
      const contents = await readFiles(ctx.workspace, files, 16 * 1024 * 1024);
      const texts = new Map(files.map((file, i) => [file, contents[i]?.toString('utf8') ?? '']));
      for (const symbol of symbols) {
        const text = texts.get(symbol.path) ?? '';
        const lines = text.split('\n').slice(symbol.startLine - 1, symbol.endLine);
        Object.assign(symbol, { source: lines.slice(0, MAX_SOURCE_LINES).join('\n') });
      }
    }
    const hovers = await hoversFromLsp(ctx, symbols);
    if (hovers)
      for (const [i, hover] of hovers.entries())
        if (hover !== undefined) Object.assign(symbols[i], { hover: cutHover(hover) });
    return {
      name: input.name,
      source: hovers ? LSP_SOURCE : SYNTAX_SOURCE,
      symbols,
      index: indexInfo(snapshot),
    };
  },
  render(data) {
    return data.symbols
      .map((s) => {
        const head = `${definitionLine(s)}\n  lines ${s.startLine}-${s.endLine}${s.exported ? ', exported' : ''}`;
        const hover = 'hover' in s && s.hover ? `\n  type: ${s.hover.replace(/\n/g, '\n        ')}` : '';
        const doc = s.doc ? `\n  doc: ${s.doc.replace(/\n/g, '\n       ')}` : '';
        const source = 'source' in s && s.source ? `\n${s.source}` : '';
        return head + hover + doc + source;
      })
      .join('\n\n');
  },
});
