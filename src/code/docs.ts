// Signatures and doc comments of definitions: the declaration up to its body, and the comment or
// docstring that documents it.
import type { LanguageId } from './languages.js';
import type { SyntaxNode } from './parser.js';
import { field, namedChildren, stringValue } from './syntax.js';

const MAX_SIGNATURE = 240;
const MAX_DOC = 1200;
const COMMENT_TYPES = new Set(['comment', 'line_comment', 'block_comment']);
// Wrappers whose preceding comment belongs to the definition inside them.
const WRAPPERS = new Set([
  'export_statement',
  'decorated_definition',
  'lexical_declaration',
  'variable_declaration',
  'const_declaration',
  'var_declaration',
  'type_declaration',
  'ambient_declaration',
]);
// Between a doc comment and its item: Rust attributes, Java/TS decorators.
const SKIPPABLE = new Set(['attribute_item', 'decorator']);

function bodyOf(node: SyntaxNode): SyntaxNode | null {
  const body = field(node, 'body');
  if (body) return body;
  const value = field(node, 'value');
  if (value && (value.type === 'arrow_function' || value.type.startsWith('function')))
    return field(value, 'body');
  const type = field(node, 'type');
  if (type && (type.type === 'struct_type' || type.type === 'interface_type')) {
    return namedChildren(type).find((c) => c.type.endsWith('_list') || c.type === 'method_elem') ?? null;
  }
  return null;
}

export function signatureOf(node: SyntaxNode, source: string): string {
  const body = bodyOf(node);
  let text = body ? source.slice(node.startIndex, body.startIndex) : node.text.split('\n')[0];
  // What is left before a body is punctuation that only introduces it (Python's ':', '{', an arrow).
  // Trailing line comments between a header and its body (`def f():  # note`) are not the signature.
  text = text.replace(/[ \t]+(#|\/\/)[^\n]*$/gm, '');
  text = text
    .replace(/\s+/g, ' ')
    .replace(/\s*(=>|[:{=;])\s*$/, '')
    .trim();
  if (node.type === 'type_spec') text = `type ${text}`;
  return text.length > MAX_SIGNATURE ? `${text.slice(0, MAX_SIGNATURE)}…` : text;
}

function cleanComment(text: string): string {
  const lines = text
    .replace(/^\/\*\*?/, '')
    .replace(/\*\/$/, '')
    .split('\n')
    .map((line) =>
      line
        .trim()
        .replace(/^(\/\/\/?!?|#+|\*(?!\/))\s?/, '')
        .trimEnd(),
    );
  return lines.join('\n').trim();
}

function docstring(node: SyntaxNode): string | undefined {
  const body = field(node, 'body');
  const first = body?.namedChild(0);
  if (first?.type !== 'expression_statement') return undefined;
  const literal = first.namedChild(0);
  if (literal?.type !== 'string') return undefined;
  const raw = stringValue(literal);
  const lines = raw.split('\n');
  // Dedent continuation lines by their common indentation, as inspect.cleandoc does.
  const indents = lines
    .slice(1)
    .filter((l) => l.trim())
    .map((l) => l.length - l.trimStart().length);
  const cut = indents.length ? Math.min(...indents) : 0;
  return [lines[0].trim(), ...lines.slice(1).map((l) => l.slice(cut))].join('\n').trim();
}

export function docOf(node: SyntaxNode, language: LanguageId): string | undefined {
  if (language === 'python') {
    const doc = docstring(node);
    if (doc) return clip(doc);
  }
  let anchor = node;
  while (anchor.parent && WRAPPERS.has(anchor.parent.type)) anchor = anchor.parent;
  const comments: string[] = [];
  let expectedRow = anchor.startPosition.row;
  for (let prev = anchor.previousNamedSibling; prev; prev = prev.previousNamedSibling) {
    if (SKIPPABLE.has(prev.type)) {
      expectedRow = prev.startPosition.row;
      continue;
    }
    if (!COMMENT_TYPES.has(prev.type) || prev.endPosition.row < expectedRow - 1) break;
    // A Rust line doc comment's node ends on the next line (it includes the newline).
    comments.unshift(prev.text);
    expectedRow = prev.startPosition.row;
  }
  if (!comments.length) return undefined;
  const doc = comments.map(cleanComment).join('\n').trim();
  return doc ? clip(doc) : undefined;
}

const clip = (text: string) => (text.length > MAX_DOC ? `${text.slice(0, MAX_DOC)}…` : text);
