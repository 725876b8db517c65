// Tag query source per language.
import type { LanguageId } from '../languages.js';
import { GO_QUERY } from './go.js';
import { JAVA_QUERY } from './java.js';
import { JAVASCRIPT_QUERY } from './javascript.js';
import { PYTHON_QUERY } from './python.js';
import { RUST_QUERY } from './rust.js';
import { TSX_QUERY, TYPESCRIPT_QUERY } from './typescript.js';

export const TAG_QUERIES: Readonly<Record<LanguageId, string>> = {
  typescript: TYPESCRIPT_QUERY,
  tsx: TSX_QUERY,
  javascript: JAVASCRIPT_QUERY,
  python: PYTHON_QUERY,
  go: GO_QUERY,
  rust: RUST_QUERY,
  java: JAVA_QUERY,
};
