// Imports of Rust: `use` trees flattened to (module path, name) pairs, and `mod x;` as a child-module import.
import type { ImportBinding } from '../schema.js';
import type { SyntaxNode } from '../parser.js';
import { field, lineOf, namedChildren } from '../syntax.js';
import type { ImportExtractor, ModuleFacts } from './types.js';

function addUse(facts: ModuleFacts, source: string, binding: ImportBinding, line: number, reexport: boolean) {
  const existing = facts.imports.find((i) => i.source === source && i.line === line);
  if (existing) existing.bindings.push(binding);
  else facts.imports.push({ source, line, bindings: [binding], reexport });
}

function walkUse(
  node: SyntaxNode,
  prefix: string,
  facts: ModuleFacts,
  line: number,
  reexport: boolean,
): void {
  const join = (a: string, b: string) => (a ? `${a}::${b}` : b);
  switch (node.type) {
    case 'scoped_identifier': {
      const path = field(node, 'path')?.text ?? '';
      const name = field(node, 'name')?.text ?? '';
      addUse(facts, join(prefix, path), { local: name, imported: name }, line, reexport);
      return;
    }
    case 'identifier':
      addUse(
        facts,
        prefix || node.text,
        { local: node.text, imported: prefix ? node.text : '*' },
        line,
        reexport,
      );
      return;
    case 'self':
      addUse(facts, prefix, { local: prefix.split('::').pop() ?? prefix, imported: '*' }, line, reexport);
      return;
    case 'use_as_clause': {
      const path = field(node, 'path');
      const alias = field(node, 'alias')?.text;
      if (!path) return;
      const before = facts.imports.length;
      walkUse(path, prefix, facts, line, reexport);
      const record = facts.imports[facts.imports.length - 1];
      if (alias && record && facts.imports.length >= before)
        record.bindings[record.bindings.length - 1].local = alias;
      return;
    }
    case 'use_wildcard': {
      const path = namedChildren(node)[0]?.text ?? '';
      addUse(facts, join(prefix, path), { local: '*', imported: '*' }, line, reexport);
      return;
    }
    case 'scoped_use_list': {
      const path = field(node, 'path')?.text ?? '';
      const list = field(node, 'list');
      for (const item of list ? namedChildren(list) : [])
        walkUse(item, join(prefix, path), facts, line, reexport);
      return;
    }
    case 'use_list':
      for (const item of namedChildren(node)) walkUse(item, prefix, facts, line, reexport);
      return;
  }
}

export const extractRustImports: ImportExtractor = ({ statement }, facts) => {
  if (!statement) return;
  const line = lineOf(statement);
  const isPublic = namedChildren(statement).some((c) => c.type === 'visibility_modifier');
  if (statement.type === 'mod_item') {
    // `mod x;` (no body) pulls in x.rs or x/mod.rs; an inline `mod x { … }` is not another file.
    if (field(statement, 'body')) return;
    const name = field(statement, 'name')?.text;
    if (name)
      facts.imports.push({
        source: `self::${name}`,
        line,
        bindings: [{ local: name, imported: '*' }],
        reexport: isPublic,
      });
    return;
  }
  const argument = field(statement, 'argument');
  if (argument) walkUse(argument, '', facts, line, isPublic);
};
