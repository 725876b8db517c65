// The uses of a symbol across a snapshot: every reference with the symbol's name, or with a name an import
// gave it (`import { a as b }`, a renamed re-export, a default import), each resolved on its own — with its
// qualifier (`types.BoolParamType`) and its line (a function-level import shadows the module's name).
import type { Reference, ReferenceKindSchema } from './schema.js';
import type { Static } from 'typebox';
import type { IndexSnapshot } from './snapshot.js';
import type { SymbolResolver } from './symbol-resolver.js';

export interface SymbolUse {
  path: string;
  line: number;
  column: number;
  kind: Static<typeof ReferenceKindSchema>;
  /** resolved: the file's definitions or imports lead to one of the targets; name: same name only. */
  confidence: 'resolved' | 'name';
}

export interface UseQuery {
  /** The last segment of the symbol's name. */
  name: string;
  /** `path:line` of the definitions the uses must lead to. */
  targets: ReadonlySet<string>;
  include: (path: string) => boolean;
  includeUnresolved: boolean;
}

export const targetKey = (path: string, line: number): string => `${path}:${line}`;

/** Names the symbol is exported under anywhere (renamed re-exports, `export { a as b }`, default). */
function exportedNames(snapshot: IndexSnapshot, name: string): Set<string> {
  const names = new Set([name]);
  for (let grew = true; grew;) {
    grew = false;
    for (const file of snapshot.files) {
      for (const e of file.exports) {
        const from = e.local ?? e.name;
        if (names.has(from) && !names.has(e.name) && e.name !== '*') {
          names.add(e.name);
          grew = true;
        }
      }
    }
  }
  return names;
}

/** Local names that imports bind to one of `exported` in a file: candidates for renamed uses. */
function importedAliases(
  imports: ReadonlyArray<{ bindings: { local: string; imported: string }[] }>,
  exported: Set<string>,
) {
  const aliases = new Set<string>();
  for (const record of imports)
    for (const b of record.bindings)
      if (b.local !== b.imported && exported.has(b.imported)) aliases.add(b.local);
  return aliases;
}

export function findUses(snapshot: IndexSnapshot, resolver: SymbolResolver, query: UseQuery): SymbolUse[] {
  const exported = exportedNames(snapshot, query.name);
  const uses: SymbolUse[] = [];
  for (const file of snapshot.files) {
    if (!query.include(file.path)) continue;
    const aliases = importedAliases(file.imports, exported);
    const hasScopedImports = file.imports.some((r) => r.scope);
    const cache = new Map<string, boolean>();
    const resolves = (ref: Reference): boolean => {
      const name = ref.qualifier ? `${ref.qualifier}.${ref.name}` : ref.name;
      // Only a file with function-level imports answers differently from line to line.
      const key = hasScopedImports ? `${name}@${ref.line}` : name;
      let hit = cache.get(key);
      if (hit === undefined) {
        const result = resolver.resolve(file, name, ref.line);
        hit =
          (result.resolution === 'local' || result.resolution === 'import') &&
          result.targets.some((t) => t.definition && query.targets.has(targetKey(t.path, t.definition.line)));
        cache.set(key, hit);
      }
      return hit;
    };
    for (const ref of file.references) {
      const sameName = ref.name === query.name;
      if (
        !sameName &&
        !(aliases.has(ref.name) && !ref.qualifier) &&
        !(ref.qualifier && exported.has(ref.name))
      )
        continue;
      const resolved = resolves(ref);
      // A renamed use counts only when it leads to the symbol; otherwise it is some other name.
      if (!resolved && (!sameName || !query.includeUnresolved)) continue;
      uses.push({
        path: file.path,
        line: ref.line,
        column: ref.column,
        kind: ref.kind,
        confidence: resolved ? 'resolved' : 'name',
      });
    }
  }
  return uses;
}
