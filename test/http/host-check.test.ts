// DNS rebinding: a request whose Host or Origin names another site is refused (403 in the envelope)
// before authentication, on /mcp, the REST API, the console and the public routes alike; the service's own
// loopback names on any port pass (inject's default host is localhost:80, supertest's 127.0.0.1:<port>),
// and the names a deployment behind a proxy lists (config file or environment) pass too.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { writeConfigFile } from '../ops/with-config.js';
import { ADMIN_KEY, injectApp, type InjectApp } from '../helpers/app.js';

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

describe('Host and Origin checks (DNS rebinding)', () => {
  let t: InjectApp;
  let token: string;
  let configFile: string;
  beforeAll(async () => {
    configFile = writeConfigFile({ http: { allowedHosts: ['tools.example.com'] } });
    t = await injectApp({
      TOOLGATE_CONFIG: configFile,
      TOOLGATE_ALLOWED_ORIGINS: 'https://tools.example.com',
    });
    token = (await t.createSession()).token;
  });
  afterAll(async () => {
    await t.close();
    rmSync(path.dirname(configFile), { recursive: true, force: true });
  });

  const mcp = (headers: Record<string, string>) =>
    t.http
      .post('/mcp')
      .set({ authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream', ...headers })
      .send(INIT);

  it('refuses a Host of another site on /mcp with 403 HOST_NOT_ALLOWED, whatever the token', async () => {
    const res = await mcp({ host: 'evil.example.com', origin: 'http://evil.example.com' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'HOST_NOT_ALLOWED', type: 'security_error' });
    expect(res.body.error.suggestion).toContain('TOOLGATE_ALLOWED_HOSTS');
  });

  it('refuses an Origin of another site with a loopback Host: 403 ORIGIN_NOT_ALLOWED', async () => {
    for (const origin of ['http://evil.example.com', 'null', 'https://localhost.evil.example.com']) {
      const res = await mcp({ host: '127.0.0.1:8080', origin });
      expect(res.status, origin).toBe(403);
      expect(res.body.error.code).toBe('ORIGIN_NOT_ALLOWED');
    }
  });

  it('the same rule for the REST API, the console and the public routes', async () => {
    for (const [method, url] of [
      ['get', '/v1/sessions'],
      ['get', '/console'],
      ['get', '/healthz'],
      ['get', '/openapi.json'],
    ] as const) {
      const res = await t.admin(t.http[method](url)).set('host', 'rebound.example.net:8080');
      expect(res.status, url).toBe(403);
      expect(res.body.error.code, url).toBe('HOST_NOT_ALLOWED');
    }
    const form = await t.admin(t.http.post('/v1/sessions')).set('origin', 'http://evil.example.com').send({});
    expect(form.status).toBe(403);
  });

  it('answers its own loopback names on any port, with their own or a loopback Origin', async () => {
    for (const host of ['localhost', 'localhost:80', '127.0.0.1:54321', '127.1.2.3', '[::1]:8080']) {
      const res = await mcp({ host, origin: `http://${host}` });
      expect(res.status, host).toBe(200);
    }
    expect((await mcp({ host: '127.0.0.1:8080', origin: 'http://localhost:3000' })).status).toBe(200);
    expect((await t.admin(t.http.get('/v1/sessions')).set('host', '127.0.0.1:9')).status).toBe(200);
  });

  it('decides each Host value again however the ones before it went (allowed values are remembered)', async () => {
    const status = async (host: string) =>
      (await t.admin(t.http.get('/v1/sessions')).set('host', host)).status;
    for (let round = 0; round < 2; round++) {
      expect(await status('127.0.0.1:8080')).toBe(200);
      expect(await status('evil.example.com')).toBe(403);
      expect(await status('tools.example.com')).toBe(200);
      expect(await status('127.0.0.1.evil.example.com')).toBe(403);
    }
  });

  it('answers the names a proxy forwards once they are listed (config file and environment)', async () => {
    expect((await mcp({ host: 'tools.example.com' })).status).toBe(200);
    expect((await mcp({ host: 'tools.example.com', origin: 'https://tools.example.com' })).status).toBe(200);
    // A proxy that rewrites Host to the loopback address: the browser's origin must be listed.
    expect((await mcp({ host: '127.0.0.1:8080', origin: 'https://tools.example.com' })).status).toBe(200);
    expect((await mcp({ host: 'other.example.com' })).status).toBe(403);
  });
});

describe('Host and Origin checks on all interfaces', () => {
  it('any Host reaches a service bound to 0.0.0.0, but a foreign Origin does not', async () => {
    const t = await injectApp({ HOST: '0.0.0.0' });
    try {
      const get = () => t.admin(t.http.get('/v1/sessions'));
      expect((await get().set('host', 'buildhost.lan:8080')).status).toBe(200);
      expect(
        (await get().set({ host: 'buildhost.lan:8080', origin: 'http://buildhost.lan:8080' })).status,
      ).toBe(200);
      const foreign = await get().set({ host: 'buildhost.lan:8080', origin: 'http://evil.example.com' });
      expect(foreign.body.error.code).toBe('ORIGIN_NOT_ALLOWED');
    } finally {
      await t.close();
    }
  });

  it('a bad TOOLGATE_ALLOWED_ORIGINS entry stops the start, naming it', () => {
    expect(() =>
      loadConfig({
        TOOLGATE_API_KEY: ADMIN_KEY,
        TOOLGATE_ALLOWED_ORIGINS: 'https://ok.example, tools.example.com',
      }),
    ).toThrow(/TOOLGATE_ALLOWED_ORIGINS: "tools.example.com" is not an origin/);
  });
});
