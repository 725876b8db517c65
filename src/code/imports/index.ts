// The import extractor of each language.
import type { LanguageId } from '../languages.js';
import { extractGoImports } from './go.js';
import { extractJavaImports } from './java.js';
import { extractJavaScriptImports } from './javascript.js';
import { extractPythonImports } from './python.js';
import { extractRustImports } from './rust.js';
import type { ImportExtractor } from './types.js';

export const IMPORT_EXTRACTORS: Readonly<Record<LanguageId, ImportExtractor>> = {
  typescript: extractJavaScriptImports,
  tsx: extractJavaScriptImports,
  javascript: extractJavaScriptImports,
  python: extractPythonImports,
  go: extractGoImports,
  rust: extractRustImports,
  java: extractJavaImports,
};
