// Imports of Python: `import a.b as c` and `from .m import x as y` (relative sources keep their dots).
import type { ImportBinding } from '../schema.js';
import { field, lineOf, namedChildren } from '../syntax.js';
import type { ImportExtractor } from './types.js';

export const extractPythonImports: ImportExtractor = ({ statement }, facts) => {
  if (!statement) return;
  const line = lineOf(statement);
  if (statement.type === 'import_statement') {
    for (const name of namedChildren(statement)) {
      if (name.type === 'aliased_import') {
        const module = field(name, 'name')?.text ?? '';
        const alias = field(name, 'alias')?.text ?? module;
        facts.imports.push({
          source: module,
          line,
          bindings: [{ local: alias, imported: '*' }],
          reexport: false,
        });
      } else if (name.type === 'dotted_name') {
        // `import a.b` binds `a`; the dotted path is what gets loaded.
        const local = name.text.split('.')[0];
        facts.imports.push({
          source: name.text,
          line,
          bindings: [{ local, imported: '*' }],
          reexport: false,
        });
      }
    }
    return;
  }
  const moduleNode = field(statement, 'module_name');
  if (!moduleNode) return;
  const bindings: ImportBinding[] = [];
  for (const child of namedChildren(statement)) {
    if (child.startIndex === moduleNode.startIndex) continue;
    if (child.type === 'wildcard_import') bindings.push({ local: '*', imported: '*' });
    else if (child.type === 'dotted_name') bindings.push({ local: child.text, imported: child.text });
    else if (child.type === 'aliased_import') {
      const name = field(child, 'name')?.text;
      if (name) bindings.push({ local: field(child, 'alias')?.text ?? name, imported: name });
    }
  }
  facts.imports.push({ source: moduleNode.text, line, bindings, reexport: false });
};
