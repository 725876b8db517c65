// The languages the code index understands (the ones ../search/languages.ts marks `indexed`) and the
// grammar (.wasm) that parses each.
import path from 'node:path';
import { INDEXED_LANGUAGES, LANGUAGES, type IndexedLanguage } from '../search/languages.js';

export const LANGUAGE_IDS = INDEXED_LANGUAGES;
export type LanguageId = IndexedLanguage;

const BY_EXTENSION: Readonly<Record<string, LanguageId>> = Object.fromEntries(
  LANGUAGES.flatMap(({ indexed, extensions }) => (indexed ? extensions.map((ext) => [ext, indexed]) : [])),
);

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
