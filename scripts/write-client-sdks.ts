// npm run client-sdks (also part of npm run openapi): writes the client SDKs' generated files from
// openapi/openapi.json — the typed tool methods of clients/python and clients/typescript, the
// TypeScript client's openapi-typescript types — and sets both packages' version to the API's.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CLIENTS_DIR, renderClientSdks } from './client-sdks/render.js';
import { OPENAPI_FILE } from './openapi-document.js';

const document = readFileSync(OPENAPI_FILE, 'utf8');
const root = path.dirname(CLIENTS_DIR);
for (const [file, content] of Object.entries(await renderClientSdks(document))) {
  writeFileSync(path.join(root, file), content);
  console.log(`wrote ${file}`);
}
const packageFile = path.join(CLIENTS_DIR, 'typescript/package.json');
const pkg = JSON.parse(readFileSync(packageFile, 'utf8')) as { version: string };
const version = (JSON.parse(document) as { info: { version: string } }).info.version;
if (pkg.version !== version) {
  writeFileSync(packageFile, `${JSON.stringify({ ...pkg, version }, null, 2)}\n`);
  console.log(`set clients/typescript/package.json version to ${version}`);
}
