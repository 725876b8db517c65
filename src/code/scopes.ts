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

  constructor(scopeNodes: readonly SyntaxNode[]) {
    // Outer scopes first: the innermost scope containing an offset is the last one that contains it.
    this.scopes = scopeNodes
      .map((node) => ({ start: node.startIndex, end: node.endIndex, node, names: new Set<string>() }))
      .sort((a, b) => a.start - b.start || b.end - a.end);
  }

  private innermost(offset: number): Scope | undefined {
    let found: Scope | undefined;
    for (const scope of this.scopes) {
      if (scope.start > offset) break;
      if (offset < scope.end) found = scope;
    }
    return found;
  }

  /** A name bound at `node` (a parameter, an assignment target…) belongs to its innermost scope. */
  bind(node: SyntaxNode): void {
    this.innermost(node.startIndex)?.names.add(node.text);
  }

  /** `global x` in a function: x there is the module's. */
  unbind(node: SyntaxNode): void {
    this.innermost(node.startIndex)?.names.delete(node.text);
  }

  /** Whether `name` used at `offset` is bound by a scope around it (a local, not a module-level name). */
  isLocal(name: string, offset: number): boolean {
    for (const scope of this.scopes) {
      if (scope.start > offset) break;
      if (offset < scope.end && scope.names.has(name)) return true;
    }
    return false;
  }

  /** The lines of the innermost scope around `offset` (a function-level import's reach), if any. */
  linesAround(offset: number): { startLine: number; endLine: number } | undefined {
    const scope = this.innermost(offset);
    return scope && { startLine: lineOf(scope.node), endLine: endLineOf(scope.node) };
  }
}
