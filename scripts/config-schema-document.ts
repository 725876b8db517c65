// Renders docs/config.schema.json from the composed config schema, so `npm run openapi` (which writes it
// too) and the staleness test produce exactly the same text.
import path from 'node:path';
import { configJsonSchema } from '../src/config/json-schema.js';

export const CONFIG_SCHEMA_FILE = path.resolve(
  path.dirname(new URL(import.meta.url).pathname),
  '../docs/config.schema.json',
);

export function renderConfigSchema(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}
