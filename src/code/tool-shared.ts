// What the code tools share: the session's index snapshot, path scopes, and the module resolver.
import { readFiles } from '../runtime/read-files.js';
import { Type, type Static } from 'typebox';
import { toolgateError } from '../lib/errors.js';
import type { Workspace } from '../runtime/workspace.js';
import type { CodeIndex } from './code-index.js';
import { languageOf, LANGUAGE_IDS } from './languages.js';
import { ModuleResolver, type GoModule } from './module-resolver.js';
import { DefinitionSchema, type Definition, type FileSummary } from './schema.js';
import type { IndexSnapshot } from './snapshot.js';
import { SymbolResolver } from './symbol-resolver.js';

/** What the code tools' helpers need of a call (a tool's ToolContext is one). */
export interface CodeContext {
  readonly session: { readonly id: string };
  readonly workspace: Workspace;
  readonly signal: AbortSignal;
  readonly services: { readonly codeIndex: CodeIndex };
}

export const SUPPORTED_LANGUAGES = LANGUAGE_IDS.join(', ');

/** The session's code index, refreshed for files changed since the last call. */
export const codeSnapshot = (ctx: CodeContext): Promise<IndexSnapshot> =>
  ctx.services.codeIndex.snapshot(ctx.session.id, ctx.workspace, ctx.signal);

export interface Scope {
  /** Workspace-relative path of the scope ('.' = everything). */
  relative: string;
  include: (file: string) => boolean;
}

/** A caller's directory or file path as a filter over indexed paths (resolved inside the workspace). */
export async function resolveScope(ctx: CodeContext, input: string): Promise<Scope> {
  const { relative, stat } = await ctx.workspace.stat(input);
  if (!stat) {
    throw toolgateError('FILE_NOT_FOUND', `No such file or directory: ${relative}`, {
      suggestion: 'Check the path with list_directory or glob.',
    });
  }
  if (relative === '.') return { relative, include: () => true };
  if (stat.type === 'file') return { relative, include: (file) => file === relative };
  const prefix = `${relative}/`;
  return { relative, include: (file) => file.startsWith(prefix) };
}

/** The indexed summary of one source file, or an error that says why there is none. */
export async function indexedFile(
  ctx: CodeContext,
  snapshot: IndexSnapshot,
  input: string,
): Promise<FileSummary> {
  const resolved = await ctx.workspace.stat(input);
  const summary = snapshot.byPath.get(resolved.relative);
  if (summary) return summary;
  const { stat } = resolved;
  if (!stat) {
    throw toolgateError('FILE_NOT_FOUND', `No such file: ${resolved.relative}`, {
      suggestion: 'Check the path with glob, or find the symbol with search_code.',
    });
  }
  if (stat.type !== 'file') throw toolgateError('NOT_A_FILE', `${resolved.relative} is not a file`);
  if (!languageOf(resolved.relative)) {
    throw toolgateError(
      'UNSUPPORTED_LANGUAGE',
      `${resolved.relative} is not a source file the index parses`,
      {
        suggestion: `Supported languages: ${SUPPORTED_LANGUAGES}.`,
      },
    );
  }
  throw toolgateError('TOOL_FAILED', `${resolved.relative} is not indexed (ignored, too large, or binary)`, {
    suggestion: 'Use read_file or grep for this file.',
  });
}

/** go.mod files at the workspace root and one level down, for resolving Go import paths. */
export async function goModules(ctx: CodeContext, snapshot: IndexSnapshot): Promise<GoModule[]> {
  if (!snapshot.files.some((f) => f.language === 'go')) return [];
  const dirs = new Set(['']);
  for (const file of snapshot.files) {
    if (file.language === 'go' && file.path.includes('/')) dirs.add(file.path.split('/')[0]);
  }
  const modules: GoModule[] = [];
  const order = [...dirs];
  const texts = await readFiles(
    ctx.workspace,
    order.map((dir) => (dir ? `${dir}/go.mod` : 'go.mod')),
    64 * 1024,
  );
  order.forEach((dir, i) => {
    const match = texts[i] && /^module\s+(\S+)/m.exec(texts[i].toString('utf8'));
    if (match) modules.push({ dir, path: match[1] });
  });
  // The longest module path first, so a nested module wins over the root one.
  return modules.sort((a, b) => b.path.length - a.path.length);
}

export async function moduleResolver(ctx: CodeContext, snapshot: IndexSnapshot): Promise<ModuleResolver> {
  return new ModuleResolver(snapshot.byPath, await goModules(ctx, snapshot));
}

/** Where a code tool's answer comes from: the session's language server, or the syntax index. */
export const AnswerSourceSchema = Type.Enum(['lsp', 'syntax'], {
  description: 'Where the answer comes from: lsp (a language server) or syntax (the tree-sitter index)',
});
export const SYNTAX_SOURCE = 'syntax' as const;
export const LSP_SOURCE = 'lsp' as const;

export const IndexInfoSchema = Type.Object(
  {
    files: Type.Integer({ description: 'Source files in the index' }),
    parsed: Type.Integer({ description: 'Files (re)parsed for this call; the rest came from the cache' }),
    durationMs: Type.Integer({ description: 'Time spent bringing the index up to date' }),
  },
  { description: 'What refreshing the code index took for this call' },
);
type IndexInfo = Static<typeof IndexInfoSchema>;

/** What the refresh behind this answer did (reported so callers can see the cache work). */
export const indexInfo = (snapshot: IndexSnapshot): IndexInfo => ({
  files: snapshot.stats.files,
  parsed: snapshot.stats.parsed,
  durationMs: snapshot.stats.durationMs,
});

export const LocatedDefinitionSchema = Type.Object({ path: Type.String(), ...DefinitionSchema.properties });
export type LocatedDefinitionData = Static<typeof LocatedDefinitionSchema>;

export const locate = (path: string, definition: Definition): LocatedDefinitionData => ({
  path,
  ...definition,
});

/** One definition as a line of text: `path:line: kind Container.name — signature`. */
export const definitionLine = (d: LocatedDefinitionData): string =>
  `${d.path}:${d.line}: ${d.kind} ${d.container ? `${d.container}.` : ''}${d.name} — ${d.signature}`;

export const SymbolNameSchema = Type.String({
  minLength: 1,
  maxLength: 300,
  description: 'Symbol name; "Class.method" for a member',
});

export const SymbolPathSchema = Type.String({
  minLength: 1,
  description: 'A file that defines or uses the symbol; narrows the answer to the definition that file means',
});

/**
 * The definitions a name stands for: as seen from `path` (its own definitions, then its imports) when
 * given, else every definition of the name ("Class.method" picks members of that container).
 */
export async function findDefinitions(
  ctx: CodeContext,
  snapshot: IndexSnapshot,
  name: string,
  path: string | undefined,
): Promise<LocatedDefinitionData[]> {
  if (path !== undefined) {
    const file = await indexedFile(ctx, snapshot, path);
    const resolver = new SymbolResolver(snapshot, await moduleResolver(ctx, snapshot));
    const seen = resolver
      .resolve(file, name)
      .targets.flatMap((t) => (t.definition ? [locate(t.path, t.definition)] : []));
    if (seen.length) return seen;
    // The file defines it as a member (a bare name never resolves to one): that definition is meant.
    const last = name.split('.').pop()!;
    return file.definitions.filter((d) => d.name === last).map((d) => locate(file.path, d));
  }
  const [head, ...rest] = name.split('.');
  const last = rest.length ? rest[rest.length - 1] : head;
  return snapshot
    .definitionsOf(last)
    .filter(({ definition }) => !rest.length || definition.container === head)
    .map(({ file, definition }) => locate(file.path, definition));
}
