// npm run openapi: writes openapi/openapi.json from the app's route and tool schemas, and
// docs/config.schema.json (the config file's JSON Schema) from the composed config schema.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { OPENAPI_FILE, renderOpenApi } from './openapi-document.js';

const document = await renderOpenApi();
mkdirSync(path.dirname(OPENAPI_FILE), { recursive: true });
writeFileSync(OPENAPI_FILE, document);
console.log(`wrote ${path.relative(process.cwd(), OPENAPI_FILE)} (${document.length} bytes)`);
await import('./write-config-schema.js');
