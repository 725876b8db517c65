// Local scopes of one file, from the tag query's @local.* captures: which names a function (or block)
// binds itself — parameters, assignments, loop and `as` targets — so a use of such a name inside it is a
// local variable, not the module-level definition of the same name; and the scope a function-level
// import belongs to. Intervals only (start/end offsets), so no tree walk per reference.
import type { SyntaxNode } from './parser.js';
import { endLineOf, lineOf } from './syntax.js';

interface Scope {
  readonly start: number;
  readonly end: number;
  readonly node: SyntaxNode;
  readonly names: Set<string>;
}

export class LocalScopes {
  private readonly scopes: Scope[];
  /** The scopes that bind each name: a use is checked against those only. */
  private readonly binders = new Map<string, Scope[]>();

  constructor(scopeNodes: readonly SyntaxNode[]) {
    this.scopes = scopeNodes
      .map((node) => ({ start: node.startIndex, end: node.endIndex, node, names: new Set<string>() }))
      .sort((a, b) => a.start - b.start || b.end - a.end);
  }

  /**
   * The innermost scope containing an offset: of the scopes around it (nested in one another) the one
   * that starts last, so walk back from the last scope starting at or before it.
   */
  private innermost(offset: number): Scope | undefined {
    let low = 0;
    let high = this.scopes.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.scopes[mid].start <= offset) low = mid + 1;
      else high = mid;
    }
    for (let i = low - 1; i >= 0; i--) if (offset < this.scopes[i].end) return this.scopes[i];
    return undefined;
  }

  /** A name bound at `node` (a parameter, an assignment target…) belongs to its innermost scope. */
  bind(node: SyntaxNode): void {
    const scope = this.innermost(node.startIndex);
    if (!scope) return;
    const name = node.text;
    if (scope.names.has(name)) return;
    scope.names.add(name);
    const list = this.binders.get(name);
    if (list) list.push(scope);
    else this.binders.set(name, [scope]);
  }

  /** `global x` in a function: x there is the module's. */
  unbind(node: SyntaxNode): void {
    const scope = this.innermost(node.startIndex);
    const name = node.text;
    if (!scope?.names.delete(name)) return;
    this.binders.set(
      name,
      (this.binders.get(name) ?? []).filter((s) => s !== scope),
    );
  }

  /** Whether `name` used at `offset` is bound by a scope around it (a local, not a module-level name). */
  isLocal(name: string, offset: number): boolean {
    return this.binders.get(name)?.some((s) => s.start <= offset && offset < s.end) ?? false;
  }

  /** The lines of the innermost scope around `offset` (a function-level import's reach), if any. */
  linesAround(offset: number): { startLine: number; endLine: number } | undefined {
    const scope = this.innermost(offset);
    return scope && { startLine: lineOf(scope.node), endLine: endLineOf(scope.node) };
  }
}
