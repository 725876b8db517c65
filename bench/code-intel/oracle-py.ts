// The Python oracle: pyright's language server (type-checker-grade name binding, imports followed) over a
// package's sources. A stdlib-only script lists the module-level symbols and import lines; pyright's
// textDocument/references gives each symbol's uses, less the names in import statements and the
// declarations (def/class names, assignment targets: bindings, not uses).
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node.js';
import type { OracleSymbol } from './sample.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

export async function pythonOracle(root: string, files: readonly string[]) {
  const run = spawnSync('python3', [path.join(here, 'oracle-py-symbols.py')], {
    input: JSON.stringify({ root, files }),
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`symbol listing failed: ${run.stderr.toString()}`);
  const listed = JSON.parse(run.stdout.toString()) as {
    symbols: Omit<OracleSymbol, 'uses'>[];
    imports: Record<string, number[]>;
    bindings: string[];
    aliases: Omit<OracleSymbol, 'uses'>[];
  };
  const bindings = new Set(listed.bindings);
  const { symbols, imports } = listed;
  const importLines = new Set(
    Object.entries(imports).flatMap(([file, lines]) => lines.map((l) => `${file}:${l}`)),
  );

  const server = spawn(process.execPath, [require.resolve('pyright/langserver.index.js'), '--stdio'], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const connection = createProtocolConnection(
    new StreamMessageReader(server.stdout),
    new StreamMessageWriter(server.stdin),
  );
  // Default settings for every section pyright asks about.
  connection.onRequest('workspace/configuration', (params: { items: unknown[] }) =>
    params.items.map(() => ({})),
  );
  connection.listen();
  const rootUri = pathToFileURL(root).href;
  await connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri,
    workspaceFolders: [{ uri: rootUri, name: 'oracle' }],
    capabilities: { workspace: { configuration: true } },
  });
  await connection.sendNotification('initialized', {});
  for (const file of files) {
    await connection.sendNotification('textDocument/didOpen', {
      textDocument: {
        uri: pathToFileURL(path.join(root, file)).href,
        languageId: 'python',
        version: 1,
        text: readFileSync(path.join(root, file), 'utf8'),
      },
    });
  }

  type Location = { uri: string; range: { start: { line: number; character: number } } };
  const at = (request: string, s: Omit<OracleSymbol, 'uses'>, extra: object = {}) =>
    connection.sendRequest(request, {
      textDocument: { uri: pathToFileURL(path.join(root, s.path)).href },
      position: { line: s.line - 1, character: s.column - 1 },
      ...extra,
    }) as Promise<Location[] | Location | null>;
  const list = (answer: Location[] | Location | null) =>
    Array.isArray(answer) ? answer : answer ? [answer] : [];

  /**
   * pyright's references, plus (as the TypeScript service does) the uses under `from m import X as Y`
   * aliases whose definition is the symbol: pyright counts those as uses of Y only.
   */
  async function uses(symbol: Omit<OracleSymbol, 'uses'>): Promise<string[]> {
    const locations = list(
      await at('textDocument/references', symbol, { context: { includeDeclaration: false } }),
    );
    for (const alias of listed.aliases.filter((a) => a.name === symbol.name)) {
      const targets = list(await at('textDocument/definition', alias));
      const home = pathToFileURL(path.join(root, symbol.path)).href;
      if (targets.some((t) => t.uri === home && t.range.start.line === symbol.line - 1))
        locations.push(
          ...list(await at('textDocument/references', alias, { context: { includeDeclaration: false } })),
        );
    }
    const found = new Set<string>();
    for (const location of locations) {
      const file = path.relative(root, fileURLToPath(location.uri)).split(path.sep).join('/');
      if (file.startsWith('..')) continue;
      const line = location.range.start.line + 1;
      if (importLines.has(`${file}:${line}`)) continue;
      const at = `${file}:${line}:${location.range.start.character + 1}`;
      if (!bindings.has(at)) found.add(at);
    }
    return [...found];
  }

  async function close() {
    await connection.sendRequest('shutdown').catch(() => undefined);
    await connection.sendNotification('exit').catch(() => undefined);
    connection.dispose();
    server.kill();
  }

  return { symbols: () => symbols, uses, close };
}
