// The client SDKs' generated files (typed tool methods, the TypeScript client's OpenAPI types, the
// version files) are what scripts/write-client-sdks.ts makes from openapi/openapi.json today, and both
// packages carry the document's API version: when the document and a client drift apart, this fails
// (run `npm run openapi`).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderClientSdks } from '../../scripts/client-sdks/render.js';
import { OPENAPI_FILE } from '../../scripts/openapi-document.js';
import { API_VERSION, TOOL_NAMES } from '../../clients/typescript/src/index.js';

const document = readFileSync(OPENAPI_FILE, 'utf8');
const info = (JSON.parse(document) as { info: { version: string } }).info;

describe('the client SDKs against the OpenAPI document', () => {
  it('have current generated files (run `npm run openapi` after changing a tool or route)', async () => {
    const rendered = await renderClientSdks(document);
    expect(Object.keys(rendered).length).toBeGreaterThanOrEqual(4);
    for (const [file, content] of Object.entries(rendered)) {
      expect(readFileSync(path.resolve(file), 'utf8'), `${file} is stale`).toBe(content);
    }
  }, 60_000);

  it('are versioned with the API', () => {
    const pkg = JSON.parse(readFileSync('clients/typescript/package.json', 'utf8')) as { version: string };
    expect(pkg.version).toBe(info.version);
    expect(API_VERSION).toBe(info.version);
    expect(readFileSync('clients/python/toolgate/_version.py', 'utf8')).toContain(
      `__version__ = "${info.version}"`,
    );
    expect(readFileSync('clients/python/pyproject.toml', 'utf8')).toContain('path = "toolgate/_version.py"');
  });

  it('have a method for every tool operation of the document', () => {
    const operations = Object.keys((JSON.parse(document) as { paths: Record<string, unknown> }).paths)
      .map((p) => /^\/v1\/sessions\/\{id\}\/tools\/([a-z_]+)$/.exec(p)?.[1])
      .filter(Boolean);
    expect([...TOOL_NAMES]).toEqual(operations);
    const python = readFileSync('clients/python/toolgate/_tools.py', 'utf8');
    for (const name of operations) expect(python).toContain(`    def ${name}(self, *`);
  });
});
