// Worker thread body: parses files sent by the ParsePool with its own grammars and answers with their
// summaries, so cold indexing uses every core while the main thread keeps serving requests.
import { parentPort } from 'node:worker_threads';
import { extractFile } from './extract.js';
import type { LanguageId } from './languages.js';
import { GrammarLoader } from './parser.js';

export interface ParseRequest {
  id: number;
  path: string;
  language: LanguageId;
  source: string;
}

const grammars = new GrammarLoader();

parentPort?.on('message', (request: ParseRequest) => {
  grammars
    .load(request.language)
    .then((lang) =>
      parentPort!.postMessage({ id: request.id, summary: extractFile(request.path, request.source, lang) }),
    )
    .catch((err: unknown) => parentPort!.postMessage({ id: request.id, error: String(err) }));
});
