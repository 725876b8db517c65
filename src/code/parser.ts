// Tree-sitter in WebAssembly: loads the runtime and grammars shipped in @vscode/tree-sitter-wasm (no native
// build, nothing downloaded), once per process, and hands out a parser and compiled tag query per language.
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as TreeSitter from '@vscode/tree-sitter-wasm';
import { grammarFile, type LanguageId } from './languages.js';
import { TAG_QUERIES } from './queries/index.js';

export type SyntaxNode = TreeSitter.Node;
export type SyntaxTree = TreeSitter.Tree;
export type TagQuery = TreeSitter.Query;

export interface LoadedLanguage {
  readonly id: LanguageId;
  readonly parser: TreeSitter.Parser;
  readonly tagQuery: TreeSitter.Query;
}

const require = createRequire(import.meta.url);

// The wasm runtime is process-wide state inside the package (one Emscripten module that must be
// initialised once), so its start-up promise is too; it is created on first use, never at import.
let runtime: Promise<typeof TreeSitter> | undefined;
const loadRuntime = (): Promise<typeof TreeSitter> =>
  (runtime ??= (async () => {
    const module = require('@vscode/tree-sitter-wasm') as typeof TreeSitter;
    await module.Parser.init({ locateFile: (file: string) => path.join(grammarDir(), file) });
    return module;
  })());

const grammarDir = () => path.dirname(require.resolve('@vscode/tree-sitter-wasm'));

/** Grammars, parsers and compiled tag queries, loaded on first use of each language. */
export class GrammarLoader {
  private readonly languages = new Map<LanguageId, Promise<LoadedLanguage>>();

  load(id: LanguageId): Promise<LoadedLanguage> {
    let loaded = this.languages.get(id);
    if (!loaded) {
      loaded = (async () => {
        const ts = await loadRuntime();
        const language = await ts.Language.load(path.join(grammarDir(), grammarFile(id)));
        const parser = new ts.Parser();
        parser.setLanguage(language);
        return { id, parser, tagQuery: new ts.Query(language, TAG_QUERIES[id]) };
      })();
      // A failed load must not be cached forever: the next call tries again.
      loaded.catch(() => this.languages.delete(id));
      this.languages.set(id, loaded);
    }
    return loaded;
  }
}
