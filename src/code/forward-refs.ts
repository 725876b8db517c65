// Python forward references: type expressions written as strings (`x: "Context"`, `t.Optional["Node"]`,
// `TypeVar("F", bound="Callable | Command")`, `t.cast("cabc.Iterable[V]", v)`). Type checkers read the
// names inside; so does the index, as references at their place inside the string.
import type { SyntaxNode } from './parser.js';

export interface ForwardName {
  name: string;
  qualifier?: string;
  /** Offset of the name in the source text. */
  offset: number;
  line: number;
  column: number;
}

const DOTTED = /(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*/g;
// Only what can be a type expression: names, dots, brackets, commas, `|`, spaces.
const TYPE_EXPRESSION = /^[\w.[\], |]+$/;

/** `Literal["a"]` holds values, not names. */
function inLiteral(node: SyntaxNode): boolean {
  for (let up = node.parent; up && up.type !== 'type'; up = up.parent) {
    if (up.type === 'subscript' && /(^|\.)Literal$/.test(up.childForFieldName('value')?.text ?? ''))
      return true;
  }
  return false;
}

/**
 * The names in one string's content node (single-line type expressions only), or with `annotation`, in
 * the strings inside a whole annotation (`t.Optional["Node"]`).
 */
export function forwardNames(node: SyntaxNode, annotation = false): ForwardName[] {
  if (!annotation) return namesIn(node);
  if (!/["']/.test(node.text)) return [];
  return node.descendantsOfType('string_content').flatMap((content) => (content ? namesIn(content) : []));
}

function namesIn(content: SyntaxNode): ForwardName[] {
  const text = content.text;
  if (content.startPosition.row !== content.endPosition.row || !TYPE_EXPRESSION.test(text)) return [];
  if (inLiteral(content)) return [];
  const out: ForwardName[] = [];
  for (const match of text.matchAll(DOTTED)) {
    let at = match.index;
    const parts = match[0].split('.');
    parts.forEach((name, i) => {
      out.push({
        name,
        ...(i ? { qualifier: parts.slice(0, i).join('.') } : {}),
        offset: content.startIndex + at,
        line: content.startPosition.row + 1,
        column: content.startPosition.column + at + 1,
      });
      at += name.length + 1;
    });
  }
  return out;
}
