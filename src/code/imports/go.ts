// Imports of Go: each import spec binds its package name (the last path segment unless aliased).
import { field, lineOf, stringValue } from '../syntax.js';
import type { ImportExtractor } from './types.js';

export const extractGoImports: ImportExtractor = ({ statement, packageNode }, facts) => {
  if (packageNode) facts.packageName = packageNode.namedChild(0)?.text;
  if (!statement) return;
  const pathNode = field(statement, 'path');
  if (!pathNode) return;
  const source = stringValue(pathNode);
  const local = field(statement, 'name')?.text ?? source.split('/').pop() ?? source;
  facts.imports.push({
    source,
    line: lineOf(statement),
    bindings: [{ local, imported: '*' }],
    reexport: false,
  });
};
