// npm run client-types: writes test/client/openapi.d.ts, the TypeScript types openapi-typescript makes
// from openapi/openapi.json (what any TypeScript user of the API would generate). The generated-client
// test checks that the checked-in file is current and that a walk-through with openapi-fetch
// type-checks (npm test runs tsc over it) and passes against the real app.
import { readFileSync, writeFileSync } from 'node:fs';
import { CLIENT_TYPES_FILE, renderClientTypes } from './client-types.js';

const document = readFileSync(new URL('../openapi/openapi.json', import.meta.url), 'utf8');
writeFileSync(CLIENT_TYPES_FILE, await renderClientTypes(document));
console.log(`wrote ${CLIENT_TYPES_FILE}`);
