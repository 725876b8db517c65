// Small helpers over tree-sitter nodes shared by tag, doc and import extraction.
import type { SyntaxNode } from './parser.js';

export const lineOf = (node: SyntaxNode): number => node.startPosition.row + 1;
export const endLineOf = (node: SyntaxNode): number => {
  // A node ending at column 0 ends on the previous line (its text stops at a newline).
  const { row, column } = node.endPosition;
  return column === 0 && row > node.startPosition.row ? row : row + 1;
};

export const namedChildren = (node: SyntaxNode): SyntaxNode[] => {
  const out: SyntaxNode[] = [];
  for (let i = 0; i < node.namedChildCount; i++) {
    const child = node.namedChild(i);
    if (child) out.push(child);
  }
  return out;
};

export const field = (node: SyntaxNode, name: string): SyntaxNode | null => node.childForFieldName(name);

/** The text of a string literal node without its quotes. */
export function stringValue(node: SyntaxNode): string {
  const fragment = namedChildren(node).find(
    (c) =>
      c.type === 'string_fragment' ||
      c.type.endsWith('string_literal_content') ||
      c.type === 'string_content',
  );
  if (fragment) return fragment.text;
  return node.text.replace(/^[`'"]+|[`'"]+$/g, '');
}

/** Has an unnamed child token with this text (e.g. `default` in `export default`). */
export function hasToken(node: SyntaxNode, token: string): boolean {
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i);
    if (child && !child.isNamed && child.type === token) return true;
  }
  return false;
}
