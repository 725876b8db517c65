// What an import extractor is given (the nodes the tag query captured) and what it fills in.
import type { ExportRecord, ImportRecord } from '../schema.js';
import type { SyntaxNode } from '../parser.js';

export interface ModuleFacts {
  imports: ImportRecord[];
  exports: ExportRecord[];
  packageName?: string;
}

export interface ImportCaptures {
  /** An import/export/use/mod statement (`@import.statement`). */
  statement?: SyntaxNode;
  /** A call that loads a module: `require('x')` / `import('x')` (`@import.call`). */
  call?: { node: SyntaxNode; callee: string; source: string };
  /** Go's package clause, Java's package declaration (`@import.package`). */
  packageNode?: SyntaxNode;
}

export type ImportExtractor = (captures: ImportCaptures, facts: ModuleFacts) => void;
