// From a name as used in one file to where it is defined: the file's own definitions first, then its
// imports, followed through re-exports (`export … from`, `export *`, Python package __init__ imports),
// and only then any definition of that name in the workspace.
import type { ModuleResolver } from './module-resolver.js';
import type { Definition, FileSummary, ImportBinding, ImportRecord } from './schema.js';
import type { IndexSnapshot, LocatedDefinition } from './snapshot.js';

export type Resolution = 'local' | 'import' | 'name-match' | 'unresolved';

export interface ResolveStep {
  path: string;
  line: number;
  /** What was followed there: the import in the using file, or a re-export further along. */
  via: 'import' | 're-export';
  source: string;
}

export interface SymbolTarget {
  path: string;
  /** Absent when the name is a whole module (a namespace import, a Go package, a Python module). */
  definition?: Definition;
}

export interface SymbolResolution {
  resolution: Resolution;
  targets: SymbolTarget[];
  chain: ResolveStep[];
}

const MAX_HOPS = 12;

export class SymbolResolver {
  constructor(
    private readonly snapshot: IndexSnapshot,
    private readonly modules: ModuleResolver,
  ) {}

  /**
   * What `name` means in `file`; with `line` (where it is used), a function-level import around that line
   * shadows the module's own definition, and imports inside other functions do not apply.
   */
  resolve(file: FileSummary, name: string, line?: number): SymbolResolution {
    const [head, ...rest] = name.split('.');
    const member = rest.join('.');
    const chain: ResolveStep[] = [];
    const around = line === undefined ? [] : scopedImportsAround(file, line);
    const scoped = this.viaImports(file, around, head, member, chain);
    if (scoped.length) return { resolution: 'import', targets: scoped, chain };

    const local = definitionsIn(file, head, member);
    if (local.length)
      return { resolution: 'local', targets: local.map((d) => ({ path: file.path, definition: d })), chain };

    // Without a line, an import inside some function is the last explanation before a name match.
    const moduleLevel = file.imports.filter((r) => !r.scope);
    const inFunctions = line === undefined ? file.imports.filter((r) => r.scope) : [];
    const found = this.viaImports(file, [...moduleLevel, ...inFunctions], head, member, chain);
    if (found.length) return { resolution: 'import', targets: found, chain };
    const wildcard = this.viaWildcards(file, moduleLevel, head, member, chain);
    if (wildcard.length) return { resolution: 'import', targets: wildcard, chain };

    const last = rest.length ? rest[rest.length - 1] : head;
    const byName = this.snapshot
      .definitionsOf(last)
      .filter(({ definition }) => !member || definition.container === undefined || rest.length === 1)
      .filter(
        ({ file: other, definition }) => member || !definition.container || !bareNamesSkipMembers(other),
      );
    if (byName.length) {
      return { resolution: 'name-match', targets: byName.map(toTarget), chain: [] };
    }
    return { resolution: 'unresolved', targets: [], chain: [] };
  }

  private viaImports(
    file: FileSummary,
    records: readonly ImportRecord[],
    head: string,
    member: string,
    chain: ResolveStep[],
  ): SymbolTarget[] {
    for (const record of records) {
      if (record.reexport) continue;
      const binding = record.bindings.find((b) => b.local === head);
      if (!binding) continue;
      chain.push({ path: file.path, line: record.line, via: 'import', source: record.source });
      const targets = this.modules.resolve(file, record.source);
      const results: SymbolTarget[] = [];
      for (const target of targets)
        results.push(...this.fromModule(target, binding, head, member, chain, new Set()));
      if (results.length || targets.length) return dedupe(results);
      chain.pop();
    }
    return [];
  }

  /** `from x import *` / `import a.b.*`: the name may come from any wildcard module. */
  private viaWildcards(
    file: FileSummary,
    records: readonly ImportRecord[],
    head: string,
    member: string,
    chain: ResolveStep[],
  ): SymbolTarget[] {
    for (const record of records) {
      if (!record.bindings.some((b) => b.local === '*')) continue;
      for (const target of this.modules.resolve(file, record.source)) {
        const summary = this.snapshot.byPath.get(target);
        const hit = summary ? this.exported(summary, head, member, chain, new Set()) : [];
        if (hit.length) {
          chain.push({ path: file.path, line: record.line, via: 'import', source: record.source });
          return hit;
        }
      }
    }
    return [];
  }

  private fromModule(
    target: string,
    binding: ImportBinding,
    head: string,
    member: string,
    chain: ResolveStep[],
    visited: Set<string>,
  ): SymbolTarget[] {
    const summary = this.snapshot.byPath.get(target);
    if (!summary) return [];
    if (binding.imported !== '*') return this.exported(summary, binding.imported, member, chain, visited);
    // A whole module: Java's class import names the class itself; otherwise the member is looked up in it.
    if (summary.language === 'java') return this.exported(summary, head, member, chain, visited);
    if (!member) return [{ path: summary.path }];
    const [first, ...more] = member.split('.');
    return this.exported(summary, first, more.join('.'), chain, visited);
  }

  /** Where module `file` gets `name` from: its own definition, or a re-export / import followed further. */
  private exported(
    file: FileSummary,
    name: string,
    member: string,
    chain: ResolveStep[],
    visited: Set<string>,
  ): SymbolTarget[] {
    const key = `${file.path}\0${name}`;
    if (visited.has(key) || visited.size > MAX_HOPS) return [];
    visited.add(key);
    if (name === 'default') {
      const local = file.exports.find((e) => e.name === 'default' && !e.source)?.local;
      if (!local) return [];
      name = local;
    }
    const own = definitionsIn(file, name, member);
    if (own.length) return own.map((d) => ({ path: file.path, definition: d }));
    const renamed = file.exports.find((e) => e.name === name && !e.source && e.local);
    if (renamed?.local) return this.exported(file, renamed.local, member, chain, visited);

    const follow = (record: ImportRecord, imported: string): SymbolTarget[] => {
      for (const target of this.modules.resolve(file, record.source)) {
        const next = this.snapshot.byPath.get(target);
        if (!next) continue;
        chain.push({ path: file.path, line: record.line, via: 're-export', source: record.source });
        const hit =
          imported === '*' && !member && record.bindings.some((b) => b.local === name && b.imported === '*')
            ? [{ path: next.path }]
            : this.exported(next, imported === '*' ? name : imported, member, chain, visited);
        if (hit.length) return hit;
        chain.pop();
      }
      return [];
    };
    for (const record of file.imports) {
      const binding = record.bindings.find((b) => b.local === name);
      if (binding) {
        const hit = follow(record, binding.imported);
        if (hit.length) return hit;
      }
    }
    for (const record of file.imports) {
      if (record.reexport && record.bindings.some((b) => b.local === '*')) {
        const hit = follow(record, '*');
        if (hit.length) return hit;
      }
    }
    // `from pkg import sub` where sub is a module file of the package.
    const submodule = file.language === 'python' ? this.modules.pythonSubmodule(file.path, name) : undefined;
    if (submodule) {
      const summary = this.snapshot.byPath.get(submodule);
      if (summary && !member) return [{ path: submodule }];
      if (summary)
        return this.exported(
          summary,
          member.split('.')[0],
          member.split('.').slice(1).join('.'),
          chain,
          visited,
        );
    }
    return [];
  }
}

/** Function-level imports whose function holds `line`, innermost first. */
function scopedImportsAround(file: FileSummary, line: number): ImportRecord[] {
  return file.imports
    .filter((r) => r.scope && r.scope.startLine <= line && line <= r.scope.endLine)
    .sort((a, b) => a.scope!.endLine - a.scope!.startLine - (b.scope!.endLine - b.scope!.startLine));
}

/**
 * In Python and JS/TS a bare name never means a class member (those are reached through `self.`/`this.`
 * or the class); in Java it does, and Rust/Go keep the old lenient answer.
 */
const bareNamesSkipMembers = (file: FileSummary): boolean =>
  file.language === 'python' ||
  file.language === 'typescript' ||
  file.language === 'tsx' ||
  file.language === 'javascript';

/** Definitions of `name` in a file; with a member (`Class.method`), that member of it. */
function definitionsIn(file: FileSummary, name: string, member: string): Definition[] {
  if (member) {
    const last = member.split('.').pop()!;
    return file.definitions.filter((d) => d.name === last && d.container === name);
  }
  const all = file.definitions.filter((d) => d.name === name);
  // A top-level definition shadows same-named members of classes.
  const top = all.filter((d) => !d.container);
  return top.length || bareNamesSkipMembers(file) ? top : all;
}

const toTarget = ({ file, definition }: LocatedDefinition): SymbolTarget => ({ path: file.path, definition });

function dedupe(targets: SymbolTarget[]): SymbolTarget[] {
  const seen = new Set<string>();
  return targets.filter((t) => {
    const key = `${t.path}:${t.definition?.line ?? 0}:${t.definition?.name ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
