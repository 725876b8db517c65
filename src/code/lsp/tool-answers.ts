// The code tools' answers from a language server, in the shapes their syntax answers have: each
// function returns undefined when no server serves the language or it does not answer within the
// call's budget, and the tool then answers from the syntax index as before (`source: "syntax"`).
import { readFiles } from '../../runtime/read-files.js';
import type { LocatedDefinitionData } from '../tool-shared.js';
import type { SymbolUse } from '../references.js';
import type { IndexSnapshot } from '../snapshot.js';
import { lspDefinition, lspHover, lspReferences, type LspContext } from './answers.js';

/** A line that opens an import or an export list (`import …`, `export {`, `export *`, `from m import`). */
const IMPORT_LINE = /^\s*(import\b|export\s+(type\s+)?\{|export\s+\*|from\s+\S+\s+import\b)/;
/** A line inside a multi-line import list: only a name, perhaps renamed, perhaps a comma. */
const LIST_LINE = /^\s*(type\s+)?[\p{L}_$][\p{L}\p{N}_$]*(\s+as\s+[\p{L}_$][\p{L}\p{N}_$]*)?\s*,?\s*$/u;

/** Whether line `n` (1-based) of `lines` names something in an import or export list. */
function inImportList(lines: readonly string[], n: number): boolean {
  for (let i = n - 1; i >= 0 && n - i <= 200; i--) {
    if (IMPORT_LINE.test(lines[i])) return true;
    if (!LIST_LINE.test(lines[i]) && !/^\s*[{(]\s*$/.test(lines[i])) return false;
  }
  return false;
}

/** Larger files are not read to tell import lists apart. */
const MAX_READ_BYTES = 4 * 1024 * 1024;

/**
 * The uses the server finds of `definitions` (all of the name `name`), within `include`, each with the
 * kind the syntax index gives the same spot (`name` where it has none). Names in import and export
 * lists are not uses (as in the syntax answer): servers list them, they are left out.
 */
export async function referencesFromLsp(
  ctx: LspContext,
  definitions: readonly LocatedDefinitionData[],
  name: string,
  include: (file: string) => boolean,
  syntaxUses: readonly SymbolUse[],
): Promise<SymbolUse[] | undefined> {
  if (!definitions.length) return undefined;
  const uses = await lspReferences(ctx, definitions, name);
  if (!uses) return undefined;
  const kinds = new Map(syntaxUses.map((use) => [`${use.path}:${use.line}:${use.column}`, use.kind]));
  // The declarations themselves are not uses (some servers list them even when asked not to).
  const declared = new Set(definitions.map((d) => `${d.path}:${d.line}`));
  const kept = uses.filter((use) => include(use.path) && !declared.has(`${use.path}:${use.line}`));
  const files = [...new Set(kept.map((use) => use.path))];
  const contents = await readFiles(ctx.workspace, files, MAX_READ_BYTES);
  const lines = new Map(files.map((file, i) => [file, contents[i]?.toString('utf8').split('\n') ?? []]));
  return kept
    .filter(
      (use) =>
        kinds.has(`${use.path}:${use.line}:${use.column}`) || !inImportList(lines.get(use.path)!, use.line),
    )
    .map((use) => ({
      ...use,
      kind: kinds.get(`${use.path}:${use.line}:${use.column}`) ?? 'name',
      confidence: 'resolved' as const,
    }))
    .sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line || a.column - b.column);
}

/** The indexed definitions at the places the server says `name`, as used in `file`, is defined. */
export async function definitionsFromLsp(
  ctx: LspContext,
  snapshot: IndexSnapshot,
  file: string,
  name: string,
  line: number | undefined,
): Promise<LocatedDefinitionData[] | undefined> {
  const answer = await lspDefinition(ctx, file, name, line);
  if (!answer) return undefined;
  const found: LocatedDefinitionData[] = [];
  for (const target of answer.definitions) {
    const definition = snapshot.byPath
      .get(target.path)
      ?.definitions.find(
        (d) => d.line === target.line || (d.startLine <= target.line && d.line > target.line),
      );
    if (definition) found.push({ path: target.path, ...definition });
  }
  // Outside the workspace (a library, the standard library) or not a definition the index knows: the
  // syntax answer says more.
  return found.length ? found : undefined;
}

/** The server's hover text (type and docs) at each definition, or undefined when it gives none. */
export async function hoversFromLsp(
  ctx: LspContext,
  definitions: readonly LocatedDefinitionData[],
): Promise<(string | undefined)[] | undefined> {
  if (!definitions.length) return undefined;
  const hovers: (string | undefined)[] = [];
  for (const d of definitions) hovers.push(await lspHover(ctx, d.path, d.name, d.line));
  return hovers.some((hover) => hover !== undefined) ? hovers : undefined;
}
