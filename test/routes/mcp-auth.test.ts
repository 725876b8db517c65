// /mcp without a usable token answers the way the MCP authorization spec lets a server say "not OAuth,
// bring a toolgate session token": a 401 whose WWW-Authenticate carries error, error_description and the
// URL of the protected-resource metadata (RFC 9728), and metadata that names no authorization server.
// Read with the MCP SDK client's own helpers, as a client reads them.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

/** The auth-params of a Bearer challenge (RFC 7235 quoted strings). */
const challengeParams = (header: string | null) =>
  Object.fromEntries([...(header ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));

describe('/mcp without a session token', () => {
  let t: TestApp;
  let origin: string;
  beforeAll(async () => {
    t = await startApp();
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t.close());

  const post = (headers: Record<string, string> = {}) =>
    fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(INIT),
    });

  for (const [label, headers] of [
    ['no token', {}],
    ['a wrong token', { authorization: 'Bearer tgs_not_a_real_token_000000' }],
  ] as const) {
    it(`${label}: 401 with error, error_description and resource_metadata in WWW-Authenticate`, async () => {
      const res = await post(headers);
      expect(res.status).toBe(401);
      const params = challengeParams(res.headers.get('www-authenticate'));
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(params.error).toBe('invalid_token');
      expect(params.error_description).toContain('a toolgate session token is required');
      expect(params.resource_metadata).toBe(`${origin}/.well-known/oauth-protected-resource/mcp`);
      // The SDK client finds the metadata URL and the error where the spec puts them.
      const sdk = extractWWWAuthenticateParams(res);
      expect(sdk.error).toBe('invalid_token');
      expect(sdk.resourceMetadataUrl?.href).toBe(params.resource_metadata);
      expect((await res.json()).error.code).toBe('UNAUTHORIZED');
    });
  }

  it('the protected-resource metadata names /mcp, bearer headers and no authorization server', async () => {
    const res = await post();
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(res);
    for (const metadataUrl of [resourceMetadataUrl, undefined]) {
      // With the URL from the challenge, and by the well-known fallback from the server URL.
      const metadata = await discoverOAuthProtectedResourceMetadata(`${origin}/mcp`, {
        resourceMetadataUrl: metadataUrl,
      });
      expect(metadata).toMatchObject({
        resource: `${origin}/mcp`,
        authorization_servers: [],
        bearer_methods_supported: ['header'],
      });
      expect(metadata.token_required).toContain('a toolgate session token is required');
    }
  });

  it('an SDK client without a token fails with the message, not an OAuth flow', async () => {
    const client = new Client({ name: 'toolgate-test', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`)))).rejects.toThrow(
      /a toolgate session token is required/,
    );
    await client.close();
  });

  it("OAuth's fallback endpoints on this origin say a session token is needed (clients show that)", async () => {
    for (const [method, route] of [
      ['GET', '/.well-known/oauth-authorization-server'],
      ['GET', '/.well-known/openid-configuration'],
      ['POST', '/register'],
    ]) {
      const res = await fetch(`${origin}${route}`, { method });
      expect(res.status).toBe(404);
      expect((await res.json()).error.message).toContain('a toolgate session token is required');
    }
  });

  it('other routes keep the plain challenge', async () => {
    const res = await fetch(`${origin}/v1/sessions`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });
});
