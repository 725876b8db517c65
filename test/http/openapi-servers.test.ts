// The served OpenAPI document leads back to where it was served: Swagger UI's "Try it out" (which reads
// /docs/json) and any client that reads /openapi.json resolve `servers` against the document's own URL,
// so on another port, host or behind a proxy they call the service that served the page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../helpers/app.js';

describe('the served OpenAPI document points at its own origin', () => {
  let t: InjectApp;
  beforeAll(async () => {
    t = await injectApp();
  });
  afterAll(async () => {
    await t.close();
  });

  for (const documentPath of ['/openapi.json', '/docs/json']) {
    it(`${documentPath}: every server resolves to the origin it was fetched from`, async () => {
      for (const host of ['localhost:4321', '127.0.0.1:9']) {
        const res = await t.http.get(documentPath).set('host', host);
        expect(res.status).toBe(200);
        const servers = res.body.servers as Array<{ url: string }>;
        expect(servers.length).toBeGreaterThan(0);
        for (const server of servers) {
          expect(new URL(server.url, `http://${host}${documentPath}`).origin).toBe(`http://${host}`);
        }
      }
    });
  }
});
