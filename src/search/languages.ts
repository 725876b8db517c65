// THE language table: which language a file is in, by extension. The code index keeps the languages it
// parses (`indexed`, its ids and grammars in ../code/languages.ts); project analysis names every
// language for its size summaries and conventions. Pure data, imported by both.
import path from 'node:path';

/** The languages the code index parses, by its ids. */
export const INDEXED_LANGUAGES = ['typescript', 'tsx', 'javascript', 'python', 'go', 'rust', 'java'] as const;
export type IndexedLanguage = (typeof INDEXED_LANGUAGES)[number];

export interface Language {
  /** The name shown to people (project summaries). */
  readonly name: string;
  readonly extensions: readonly string[];
  /** The code index's id, for the languages it parses. */
  readonly indexed?: IndexedLanguage;
  /** Docs and data formats, as opposed to code. */
  readonly data?: boolean;
}

export const LANGUAGES: readonly Language[] = [
  { name: 'TypeScript', extensions: ['.ts', '.mts', '.cts'], indexed: 'typescript' },
  { name: 'TypeScript', extensions: ['.tsx'], indexed: 'tsx' },
  { name: 'JavaScript', extensions: ['.js', '.mjs', '.cjs', '.jsx'], indexed: 'javascript' },
  { name: 'Python', extensions: ['.py', '.pyi'], indexed: 'python' },
  { name: 'Go', extensions: ['.go'], indexed: 'go' },
  { name: 'Rust', extensions: ['.rs'], indexed: 'rust' },
  { name: 'Java', extensions: ['.java'], indexed: 'java' },
  { name: 'Kotlin', extensions: ['.kt', '.kts'] },
  { name: 'Scala', extensions: ['.scala'] },
  { name: 'C', extensions: ['.c', '.h'] },
  { name: 'C++', extensions: ['.cc', '.cpp', '.hpp'] },
  { name: 'C#', extensions: ['.cs'] },
  { name: 'Ruby', extensions: ['.rb'] },
  { name: 'PHP', extensions: ['.php'] },
  { name: 'Swift', extensions: ['.swift'] },
  { name: 'Shell', extensions: ['.sh', '.bash'] },
  { name: 'SQL', extensions: ['.sql'] },
  { name: 'HTML', extensions: ['.html'] },
  { name: 'CSS', extensions: ['.css', '.scss'] },
  { name: 'Vue', extensions: ['.vue'] },
  { name: 'Svelte', extensions: ['.svelte'] },
  { name: 'Markdown', extensions: ['.md'], data: true },
  { name: 'JSON', extensions: ['.json'], data: true },
  { name: 'YAML', extensions: ['.yml', '.yaml'], data: true },
  { name: 'TOML', extensions: ['.toml'], data: true },
  { name: 'XML', extensions: ['.xml'], data: true },
];

const BY_EXTENSION: ReadonlyMap<string, Language> = new Map(
  LANGUAGES.flatMap((language) => language.extensions.map((ext) => [ext, language] as const)),
);

/** The language of a file by its extension (case-insensitive), if the table knows it. */
export const languageByExtension = (file: string): Language | undefined =>
  BY_EXTENSION.get(path.posix.extname(file).toLowerCase());

/** Whether an extension (as written) is JavaScript or TypeScript. */
export const isJsOrTsExtension = (ext: string): boolean =>
  BY_EXTENSION.get(ext)?.name === 'JavaScript' || BY_EXTENSION.get(ext)?.name === 'TypeScript';
