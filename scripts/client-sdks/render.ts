// The generated files of the client SDKs, rendered from the OpenAPI document: shared by the writer
// (npm run openapi, npm run client-sdks) and the staleness test (test/clients/generated.test.ts), so
// both produce exactly the same text.
import path from 'node:path';
import prettier from 'prettier';
import { renderClientTypes } from '../client-types.js';
import { renderPythonTools } from './python-tools.js';
import type { OpenApiDocument } from './tool-operations.js';
import { renderTypeScriptTools } from './typescript-tools.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

export const CLIENTS_DIR = path.join(ROOT, 'clients');

/** Each generated file, relative to the repository root, with its content. */
export async function renderClientSdks(documentText: string): Promise<Record<string, string>> {
  const document = JSON.parse(documentText) as OpenApiDocument;
  const tsTools = renderTypeScriptTools(document);
  const options = await prettier.resolveConfig(path.join(ROOT, 'clients/typescript/src/tools.ts'));
  return {
    'clients/python/toolgate/_tools.py': renderPythonTools(document),
    'clients/python/toolgate/_version.py': `# Generated from openapi/openapi.json (npm run openapi): the package is versioned with the API.\n__version__ = ${JSON.stringify(document.info.version)}\n`,
    'clients/typescript/src/openapi.ts': await renderClientTypes(documentText, 'npm run openapi'),
    'clients/typescript/src/tools.ts': await prettier.format(tsTools, { ...options, parser: 'typescript' }),
  };
}
