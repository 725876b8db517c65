// The code index's parse as a CpuPool job (src/cpu): one source file in, its summary out. A large file
// costs seconds of synchronous wasm work (tree-sitter and the tag query: 1 MiB of TypeScript took about
// a second on this machine, four when it was busy), which on the service's thread would stall every
// session; in the pool it runs under the job's deadline, as its session, and a worker that passes the
// deadline is terminated. Each worker loads a grammar once, with its first file of that language.
import { extractFile } from './extract.js';
import type { LanguageId } from './languages.js';
import { GrammarLoader } from './parser.js';
import type { FileSummary } from './schema.js';

const grammars = new GrammarLoader();

export interface ParseJobInput {
  path: string;
  language: LanguageId;
  text: string;
}

/** The file's summary, or null when the grammar cannot make sense of it (left out of the index). */
export async function parseFile({ path, language, text }: ParseJobInput): Promise<FileSummary | null> {
  const lang = await grammars.load(language);
  try {
    return extractFile(path, text, lang);
  } catch {
    return null;
  }
}
