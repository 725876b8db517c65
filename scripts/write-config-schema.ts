// Writes docs/config.schema.json, the config file's JSON Schema (also written by `npm run openapi`):
// `npx tsx scripts/write-config-schema.ts`.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_SCHEMA_FILE, renderConfigSchema } from './config-schema-document.js';

const document = renderConfigSchema();
writeFileSync(CONFIG_SCHEMA_FILE, document);
console.log(`wrote ${path.relative(process.cwd(), CONFIG_SCHEMA_FILE)} (${document.length} bytes)`);
