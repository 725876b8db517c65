// The languages the code index understands: file extensions and the grammar (.wasm) that parses each.
import path from 'node:path';

export const LANGUAGE_IDS = ['typescript', 'tsx', 'javascript', 'python', 'go', 'rust', 'java'] as const;
export type LanguageId = (typeof LANGUAGE_IDS)[number];

const BY_EXTENSION: Readonly<Record<string, LanguageId>> = {
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.py': 'python',
  '.pyi': 'python',
  '.go': 'go',
  '.rs': 'rust',
  '.java': 'java',
};

/** Extensions of the files the index parses, and endings it leaves out (for walks in the runtime). */
export const SOURCE_FILTER = {
  extensions: Object.keys(BY_EXTENSION),
  excludeSuffixes: ['.d.ts', '.d.mts', '.d.cts'],
} as const;

export const languageOf = (file: string): LanguageId | undefined => {
  // Type declarations describe code that lives elsewhere; indexing them would double every symbol.
  if (SOURCE_FILTER.excludeSuffixes.some((suffix) => file.endsWith(suffix))) return undefined;
  return BY_EXTENSION[path.extname(file).toLowerCase()];
};

/** The grammar file in @vscode/tree-sitter-wasm for a language. */
export const grammarFile = (language: LanguageId): string => `tree-sitter-${language}.wasm`;

/** Languages whose imports resolve to files the same way (specifiers, index files, extensions). */
export const isJsLike = (language: LanguageId): boolean =>
  language === 'typescript' || language === 'tsx' || language === 'javascript';
