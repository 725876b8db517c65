// A generated client, as a TypeScript user would make one: the checked-in types are what
// openapi-typescript makes from openapi/openapi.json today (npm run client-types), and the openapi-fetch
// walk-through (walkthrough.ts, type-checked under strict by npm test's tsc) passes against the real app.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_TYPES_FILE, renderClientTypes } from '../../scripts/client-types.js';
import { OPENAPI_FILE } from '../../scripts/openapi-document.js';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';
import { walkthrough } from './walkthrough.js';

describe('a client generated from the OpenAPI document', () => {
  let t: TestApp;
  let baseUrl: string;
  beforeAll(async () => {
    t = await startApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => t.close());

  it('has types that match the document (run `npm run client-types` after `npm run openapi`)', async () => {
    const generated = await renderClientTypes(readFileSync(OPENAPI_FILE, 'utf8'));
    expect(readFileSync(CLIENT_TYPES_FILE, 'utf8')).toBe(generated);
  });

  it('walks through a session with openapi-fetch, sending only the fields without defaults', async () => {
    const result = await walkthrough(baseUrl, ADMIN_KEY);
    expect(result.readContent).toBe('def hello():\n    return "hello"');
    expect(result.editStrategy).toBe('exact');
    expect(result.grepFiles).toEqual(['src/hello.py']);
    expect(result.commandStdout).toBe('hello, world\n');
    expect(result.missingFileCode).toBe('FILE_NOT_FOUND');
    expect(result.auditedTools).toEqual(
      expect.arrayContaining(['write_file', 'read_file', 'edit_file', 'grep', 'run_command']),
    );
  });
});
