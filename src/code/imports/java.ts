// Imports of Java: `import a.b.C`, `import a.b.*`, `import static a.B.m`, and the file's package.
import { lineOf, namedChildren } from '../syntax.js';
import type { ImportExtractor } from './types.js';

export const extractJavaImports: ImportExtractor = ({ statement, packageNode }, facts) => {
  if (packageNode)
    facts.packageName = namedChildren(packageNode).find((c) => c.type.endsWith('identifier'))?.text;
  if (!statement) return;
  const name = namedChildren(statement).find(
    (c) => c.type === 'scoped_identifier' || c.type === 'identifier',
  );
  if (!name) return;
  const line = lineOf(statement);
  if (namedChildren(statement).some((c) => c.type === 'asterisk')) {
    facts.imports.push({
      source: name.text,
      line,
      bindings: [{ local: '*', imported: '*' }],
      reexport: false,
    });
    return;
  }
  const parts = name.text.split('.');
  const last = parts.pop() ?? name.text;
  const isStatic = statement.text.startsWith('import static');
  // A class import names the class's own file; a static import names a member of the class before it.
  const source = isStatic ? parts.join('.') : name.text;
  facts.imports.push({
    source,
    line,
    bindings: [{ local: last, imported: isStatic ? last : '*' }],
    reexport: false,
  });
};
