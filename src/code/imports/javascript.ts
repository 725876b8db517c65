// Imports and exports of JavaScript/TypeScript: ES import/export statements, require() and import().
import type { ImportBinding } from '../schema.js';
import type { SyntaxNode } from '../parser.js';
import { field, hasToken, lineOf, namedChildren, stringValue } from '../syntax.js';
import type { ImportExtractor, ModuleFacts } from './types.js';

function importBindings(clause: SyntaxNode): ImportBinding[] {
  const bindings: ImportBinding[] = [];
  for (const part of namedChildren(clause)) {
    if (part.type === 'identifier') bindings.push({ local: part.text, imported: 'default' });
    else if (part.type === 'namespace_import') {
      const name = namedChildren(part).find((c) => c.type === 'identifier');
      if (name) bindings.push({ local: name.text, imported: '*' });
    } else if (part.type === 'named_imports') {
      for (const spec of namedChildren(part)) {
        if (spec.type !== 'import_specifier') continue;
        const name = field(spec, 'name')?.text;
        if (name) bindings.push({ local: field(spec, 'alias')?.text ?? name, imported: name });
      }
    }
  }
  return bindings;
}

/** Names a declaration introduces: `export function f`, `export const a = 1, b = 2`. */
function declaredNames(declaration: SyntaxNode): string[] {
  // `export declare const x: T` / `export declare function f()`: the names of what is declared.
  if (declaration.type === 'ambient_declaration') {
    const inner = namedChildren(declaration)[0];
    return inner ? declaredNames(inner) : [];
  }
  const name = field(declaration, 'name');
  if (name) return [name.text];
  return namedChildren(declaration)
    .filter((c) => c.type === 'variable_declarator')
    .map((c) => field(c, 'name'))
    .filter((n): n is SyntaxNode => n?.type === 'identifier')
    .map((n) => n.text);
}

function exportStatement(node: SyntaxNode, facts: ModuleFacts): void {
  const line = lineOf(node);
  const sourceNode = field(node, 'source');
  const source = sourceNode ? stringValue(sourceNode) : undefined;
  const clause = namedChildren(node).find((c) => c.type === 'export_clause');
  const namespace = namedChildren(node).find((c) => c.type === 'namespace_export');
  if (source !== undefined) {
    const bindings: ImportBinding[] = [];
    if (clause) {
      for (const spec of namedChildren(clause)) {
        const name = field(spec, 'name')?.text;
        if (!name) continue;
        const exported = field(spec, 'alias')?.text ?? name;
        bindings.push({ local: exported, imported: name });
        facts.exports.push({ name: exported, ...(exported !== name ? { local: name } : {}), line, source });
      }
    } else if (namespace) {
      const name = namedChildren(namespace)[0]?.text ?? '*';
      bindings.push({ local: name, imported: '*' });
      facts.exports.push({ name, line, source });
    } else {
      bindings.push({ local: '*', imported: '*' });
      facts.exports.push({ name: '*', line, source });
    }
    facts.imports.push({ source, line, bindings, reexport: true });
    return;
  }
  if (clause) {
    for (const spec of namedChildren(clause)) {
      const name = field(spec, 'name')?.text;
      if (!name) continue;
      const exported = field(spec, 'alias')?.text ?? name;
      facts.exports.push({ name: exported, ...(exported !== name ? { local: name } : {}), line });
    }
    return;
  }
  const declaration = field(node, 'declaration');
  if (hasToken(node, 'default')) {
    const value = declaration ?? field(node, 'value');
    const local = value ? (value.type === 'identifier' ? value.text : declaredNames(value)[0]) : undefined;
    facts.exports.push({ name: 'default', ...(local ? { local } : {}), line });
    return;
  }
  if (declaration) for (const name of declaredNames(declaration)) facts.exports.push({ name, line });
}

function requireBindings(call: SyntaxNode): ImportBinding[] {
  let parent = call.parent;
  if (parent?.type === 'await_expression') parent = parent.parent;
  if (parent?.type !== 'variable_declarator') return [];
  const target = field(parent, 'name');
  if (target?.type === 'identifier') return [{ local: target.text, imported: '*' }];
  if (target?.type !== 'object_pattern') return [];
  const bindings: ImportBinding[] = [];
  for (const prop of namedChildren(target)) {
    if (prop.type === 'shorthand_property_identifier_pattern')
      bindings.push({ local: prop.text, imported: prop.text });
    else if (prop.type === 'pair_pattern') {
      const key = field(prop, 'key')?.text;
      const value = field(prop, 'value');
      if (key && value?.type === 'identifier') bindings.push({ local: value.text, imported: key });
    }
  }
  return bindings;
}

export const extractJavaScriptImports: ImportExtractor = (captures, facts) => {
  const { statement, call } = captures;
  if (call && (call.callee === 'require' || call.callee === 'import')) {
    facts.imports.push({
      source: call.source,
      line: lineOf(call.node),
      bindings: requireBindings(call.node),
      reexport: false,
    });
  }
  if (!statement) return;
  if (statement.type === 'export_statement') return exportStatement(statement, facts);
  const sourceNode = field(statement, 'source');
  if (!sourceNode) return;
  const clause = namedChildren(statement).find((c) => c.type === 'import_clause');
  facts.imports.push({
    source: stringValue(sourceNode),
    line: lineOf(statement),
    bindings: clause ? importBindings(clause) : [],
    reexport: false,
  });
};
