// extract_conventions: the code style a change should match — indentation, quotes, semicolons, line
// endings, naming, test layout and framework, lint/format configuration — measured from the files.
import path from 'node:path';
import { Type, type Static } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { codeSnapshot } from '../../code/tool-shared.js';
import { detectProject } from '../../project/detect.js';
import { DATA_LANGUAGES, inventory, languageName, readText } from '../../project/inventory.js';
import { StyleTally } from '../../project/naming.js';
import {
  emptyCounts,
  indentUnit,
  majority,
  measure,
  percentile,
  type StyleCounts,
} from '../../project/style-sample.js';
import { pyprojectTooling, testFrameworks, testLayout, toolingFiles } from '../../project/tooling.js';

const Input = Type.Object(
  {
    max_files: Type.Integer({
      minimum: 1,
      maximum: 2000,
      default: 300,
      description: 'Source files sampled for formatting habits',
    }),
  },
  { additionalProperties: false },
);

const IndentationSchema = Type.Object({
  style: Type.Enum(['spaces', 'tabs', 'mixed', 'unknown']),
  size: Type.Optional(Type.Integer({ description: 'Spaces per level' })),
});
type Indentation = Static<typeof IndentationSchema>;

const Output = Type.Object({
  sampledFiles: Type.Integer(),
  indentation: Type.Object({
    ...IndentationSchema.properties,
    language: Type.Optional(Type.String({ description: 'The main language, whose habit this is' })),
    declared: Type.Optional(Type.String({ description: 'What .editorconfig says, when it says' })),
    byLanguage: Type.Array(Type.Object({ language: Type.String(), ...IndentationSchema.properties })),
  }),
  lineEndings: Type.Enum(['lf', 'crlf', 'mixed', 'unknown']),
  finalNewline: Type.Boolean({ description: 'Files end with a newline (90% or more of them)' }),
  lineLength: Type.Object({ p95: Type.Integer(), max: Type.Integer() }),
  quotes: Type.Array(Type.Object({ language: Type.String(), style: Type.String() })),
  semicolons: Type.Enum(['always', 'never', 'mixed', 'unknown'], {
    description: 'JavaScript/TypeScript only',
  }),
  naming: Type.Array(
    Type.Object({
      language: Type.String(),
      functions: Type.Optional(Type.String()),
      types: Type.Optional(Type.String()),
      constants: Type.Optional(Type.String()),
      files: Type.Optional(Type.String()),
    }),
  ),
  tests: Type.Object({
    frameworks: Type.Array(Type.String()),
    layout: Type.Enum(['separate', 'colocated', '__tests__', 'mixed', 'none']),
    directories: Type.Array(Type.String()),
    patterns: Type.Array(Type.String()),
    count: Type.Integer(),
    examples: Type.Array(Type.String()),
  }),
  tooling: Type.Array(Type.Object({ tool: Type.String(), path: Type.String() })),
});

const TYPE_KINDS = new Set(['class', 'interface', 'struct', 'enum', 'trait', 'type']);

function editorconfigIndent(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const star = /^\[\*\]\s*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(text)?.[1] ?? '';
  const style = /^\s*indent_style\s*=\s*(\w+)/m.exec(star)?.[1];
  const size = /^\s*indent_size\s*=\s*(\w+)/m.exec(star)?.[1];
  if (!style && !size) return undefined;
  return [style, size].filter(Boolean).join(' ');
}

export default defineTool({
  name: 'extract_conventions',
  category: 'project',
  description:
    'The conventions new code should follow, measured from the repository: indentation (and what ' +
    '.editorconfig declares), line endings, final newline, line length, quote style and semicolons, ' +
    'naming style of functions, types, constants and files per language, where tests live and which ' +
    'framework runs them, and the lint/format configuration present (ESLint, Prettier, Ruff, Black…).',
  capabilities: { readsFiles: true, idempotent: true },
  input: Input,
  output: Output,
  examples: [{ max_files: 300 }],
  async execute(input, ctx) {
    const inv = await inventory(ctx);
    const sources = inv.files.filter((f) => {
      const language = languageName(f.path);
      return language !== undefined && !DATA_LANGUAGES.has(language) && f.size <= 256 * 1024;
    });
    // An even spread across the tree rather than the first directory only.
    const stride = Math.max(1, sources.length / input.max_files);
    const sample = [];
    for (let i = 0; i < sources.length && sample.length < input.max_files; i += stride)
      sample.push(sources[Math.floor(i)]);
    const counts = emptyCounts();
    // Indentation differs by language (Go uses tabs, Python 4 spaces…): measured per language as well.
    const perLanguage = new Map<string, StyleCounts>();
    for (const file of sample) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      const text = await readText(ctx, file.path);
      if (text === undefined) continue;
      measure(file.path, text, counts);
      const language = languageName(file.path)!;
      const own = perLanguage.get(language) ?? emptyCounts();
      measure(file.path, text, own);
      perLanguage.set(language, own);
    }

    const snapshot = await codeSnapshot(ctx);
    const tallies = new Map<
      string,
      { functions: StyleTally; types: StyleTally; constants: StyleTally; files: StyleTally }
    >();
    for (const file of snapshot.files) {
      const language = languageName(file.path) ?? file.language;
      let tally = tallies.get(language);
      if (!tally) {
        tally = {
          functions: new StyleTally(),
          types: new StyleTally(),
          constants: new StyleTally(),
          files: new StyleTally(),
        };
        tallies.set(language, tally);
      }
      const stem = path.posix.basename(file.path).replace(/(\.(test|spec))?\.[^.]+$/, '');
      if (stem !== 'index' && stem !== '__init__' && stem !== 'mod') tally.files.add(stem);
      for (const def of file.definitions) {
        if (def.kind === 'function' || def.kind === 'method')
          tally.functions.add(def.name.replace(/^_+/, ''));
        else if (TYPE_KINDS.has(def.kind)) tally.types.add(def.name);
        else if (def.kind === 'constant') tally.constants.add(def.name);
      }
    }

    const found = await detectProject(ctx, inv);
    const tests = testLayout(inv);
    const tooling = toolingFiles(inv);
    for (const file of inv.files.filter((f) => path.posix.basename(f.path) === 'pyproject.toml')) {
      tooling.push(...pyprojectTooling((await readText(ctx, file.path)) ?? '', file.path));
    }
    const editorconfig = inv.byPath.has('.editorconfig') ? await readText(ctx, '.editorconfig') : undefined;
    const indentationOf = (c: StyleCounts) => {
      const style = majority(c.spaces, c.tabs, 'spaces', 'tabs') as Indentation['style'];
      const size = style === 'spaces' ? indentUnit(c.steps) : undefined;
      return { style, ...(size ? { size } : {}) };
    };
    // The headline is the main language's habit; the per-language list has the rest.
    const primary = [...perLanguage].sort((a, b) => b[1].files - a[1].files)[0];
    const declared = editorconfigIndent(editorconfig);
    const semicolons = majority(counts.semicolon.with, counts.semicolon.without, 'always', 'never');
    const result: Static<typeof Output> = {
      sampledFiles: counts.files,
      indentation: {
        ...indentationOf(primary ? primary[1] : counts),
        ...(primary ? { language: primary[0] } : {}),
        ...(declared ? { declared } : {}),
        byLanguage: [...perLanguage]
          .sort((a, b) => a[0].localeCompare(b[0]))
          .map(([language, c]) => ({ language, ...indentationOf(c) })),
      },
      lineEndings: majority(counts.lf, counts.crlf, 'lf', 'crlf') as 'lf' | 'crlf' | 'mixed' | 'unknown',
      finalNewline: counts.files > 0 && counts.finalNewline / counts.files >= 0.9,
      lineLength: { p95: percentile(counts.lineLengths, 95), max: Math.max(0, ...counts.lineLengths) },
      quotes: [...counts.quotes].map(([language, q]) => ({
        language,
        style: majority(q.single, q.double, 'single', 'double'),
      })),
      semicolons:
        semicolons === 'always' || semicolons === 'never' || semicolons === 'mixed' ? semicolons : 'unknown',
      naming: [...tallies]
        .map(([language, t]) => ({
          language,
          functions: t.functions.dominant(),
          types: t.types.dominant(),
          constants: t.constants.dominant(),
          files: t.files.dominant(),
        }))
        .map(
          (entry) =>
            Object.fromEntries(Object.entries(entry).filter(([, v]) => v !== undefined)) as typeof entry,
        )
        .sort((a, b) => a.language.localeCompare(b.language)),
      tests: {
        frameworks: testFrameworks(found.frameworks.keys(), tests),
        layout: tests.layout,
        directories: tests.directories,
        patterns: tests.patterns,
        count: tests.files.length,
        examples: tests.files.slice(0, 5),
      },
      tooling,
    };
    return result;
  },
  render(data) {
    const indent = (i: Indentation) => `${i.style}${i.size ? ` (${i.size})` : ''}`;
    const byLanguage = data.indentation.byLanguage.map((i) => `${i.language} ${indent(i)}`).join(', ');
    const lines = [
      `indentation: ${indent(data.indentation)}${data.indentation.declared ? `; .editorconfig: ${data.indentation.declared}` : ''}` +
        (byLanguage ? ` [${byLanguage}]` : ''),
      `line endings: ${data.lineEndings}; final newline: ${data.finalNewline ? 'yes' : 'no'}; line length p95 ${data.lineLength.p95}, max ${data.lineLength.max}`,
      `quotes: ${data.quotes.map((q) => `${q.language} ${q.style}`).join(', ') || 'n/a'}; semicolons: ${data.semicolons}`,
      'naming:',
      ...data.naming.map(
        (n) =>
          `  ${n.language}: ${[
            n.functions && `functions ${n.functions}`,
            n.types && `types ${n.types}`,
            n.constants && `constants ${n.constants}`,
            n.files && `files ${n.files}`,
          ]
            .filter(Boolean)
            .join(', ')}`,
      ),
      `tests: ${data.tests.count} files, ${data.tests.layout}${data.tests.directories.length ? ` in ${data.tests.directories.join(', ')}` : ''}; ` +
        `patterns ${data.tests.patterns.join(', ') || 'n/a'}; frameworks ${data.tests.frameworks.join(', ') || 'unknown'}`,
      `tooling: ${data.tooling.map((t) => `${t.tool} (${t.path})`).join(', ') || 'none found'}`,
      `(sampled ${data.sampledFiles} files)`,
    ];
    return lines.join('\n');
  },
});
