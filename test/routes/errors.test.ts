import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { defineTool } from '../../src/contract/tool.js';
import { BUILTIN_TOOLS } from '../../src/tools/index.js';
import { ADMIN_KEY, injectApp, type InjectApp } from '../helpers/app.js';

// Test-only tools that fail in the two ways a real tool can: a bug (500) and running too long (504).
const buggy = defineTool({
  name: 'buggy_tool',
  category: 'filesystem',
  description: 'Throws a plain Error.',
  capabilities: {},
  input: Type.Object({}),
  async execute() {
    throw new Error('boom at /very/secret/host/path');
  },
});
const slow = defineTool({
  name: 'slow_tool',
  category: 'filesystem',
  description: 'Outlives its timeout.',
  capabilities: {},
  input: Type.Object({}),
  timeoutMs: () => -4_900, // the pipeline adds 5 s of headroom: 100 ms in all
  async execute(_input, ctx) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    return { aborted: ctx.signal.aborted };
  },
});

function expectEnvelope(body: Record<string, unknown>, code: string, type: string) {
  expect(body.success).toBe(false);
  expect(typeof body.requestId).toBe('string');
  const error = body.error as Record<string, unknown>;
  expect(error.code).toBe(code);
  expect(error.type).toBe(type);
  expect(typeof error.message).toBe('string');
}

describe('error envelope', () => {
  let t: InjectApp;
  let session: { id: string; token: string };
  beforeAll(async () => {
    t = await injectApp({}, { tools: [...BUILTIN_TOOLS, buggy, slow] });
    session = await t.createSession({ profile: 'read-write', files: { 'a.txt': 'a\n', 'bin.dat': 'x\0y' } });
  });
  afterAll(() => t.close());

  it('401 without a token, with a malformed header, and with a wrong token', async () => {
    for (const header of [undefined, 'Basic abc', 'Bearer', 'Bearer wrong-token']) {
      const req = t.http.get('/v1/tools');
      const res = await (header ? req.set('authorization', header) : req);
      expect(res.status).toBe(401);
      expectEnvelope(res.body, 'UNAUTHORIZED', 'permission_error');
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('every response carries x-request-id; a sane caller-given id is kept', async () => {
    const mine = await t.http.get('/healthz').set('x-request-id', 'trace-123');
    expect(mine.headers['x-request-id']).toBe('trace-123');
    const denied = await t.http.get('/v1/tools');
    expect(denied.headers['x-request-id']).toBe(denied.body.requestId);
    const odd = await t.http.get('/healthz').set('x-request-id', 'bad id with spaces');
    expect(odd.headers['x-request-id']).toMatch(/^req_/);
  });

  it('health, readiness, docs and openapi.json are public', async () => {
    expect((await t.http.get('/healthz')).status).toBe(200);
    const ready = await t.http.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.database.ok).toBe(true);
    expect((await t.http.get('/openapi.json')).status).toBe(200);
    expect((await t.http.get('/docs/')).status).toBe(200);
  });

  it('400 validation_error names every bad field, what was expected, and shows a valid example', async () => {
    const res = await t.call(session, 'read_file', { path: 7, offset: 0, extra: true });
    expect(res.status).toBe(400);
    expectEnvelope(res.body, 'VALIDATION_FAILED', 'validation_error');
    const fields = res.body.error.details.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['extra', 'offset', 'path']);
    const offset = res.body.error.details.errors.find((e: { field: string }) => e.field === 'offset');
    expect(offset.expected).toContain('>= 1');
    expect(res.body.error.details.example).toEqual({ path: 'src/index.ts', offset: 1, limit: 2000 });
    expect(res.body.callId).toMatch(/^call_/);
    const missing = await t.call(session, 'read_file', {});
    expect(missing.body.error.details.errors).toEqual([
      expect.objectContaining({ field: 'path', problem: 'is required' }),
    ]);
  });

  it('403 security_error for a path outside the workspace, without host paths', async () => {
    const res = await t.call(session, 'read_file', { path: '../../etc/passwd' });
    expect(res.status).toBe(403);
    expectEnvelope(res.body, 'PATH_OUTSIDE_WORKSPACE', 'security_error');
    expect(JSON.stringify(res.body)).not.toContain(t.dataDir);
  });

  it('403 permission_error for a tool outside the profile', async () => {
    const ro = await t.createSession({ profile: 'read-only' });
    const res = await t.call(ro, 'write_file', { path: 'x', content: 'y' });
    expect(res.status).toBe(403);
    expectEnvelope(res.body, 'PERMISSION_DENIED', 'permission_error');
    expect(res.body.error.details.missingPermission).toBe('write');
  });

  it('404 for unknown tools (with a suggestion), files, sessions and routes', async () => {
    const tool = await t.http
      .post(`/v1/sessions/${session.id}/tools/read_fil`)
      .set('authorization', `Bearer ${session.token}`)
      .send({});
    expect(tool.status).toBe(404);
    expectEnvelope(tool.body, 'TOOL_NOT_FOUND', 'user_error');
    expect(tool.body.error.suggestion).toContain('read_file');
    const file = await t.call(session, 'read_file', { path: 'nope.txt' });
    expect(file.status).toBe(404);
    expectEnvelope(file.body, 'FILE_NOT_FOUND', 'user_error');
    const sess = await t.admin(t.http.get('/v1/sessions/ses_nope'));
    expectEnvelope(sess.body, 'SESSION_NOT_FOUND', 'user_error');
    const route = await t.http.get('/v2/whatever');
    expect(route.status).toBe(404);
    expectEnvelope(route.body, 'ROUTE_NOT_FOUND', 'user_error');
  });

  it('413 for a body over the limit and 415 for an unsupported media type', async () => {
    const huge = await t.http
      .post(`/v1/sessions/${session.id}/tools/write_file`)
      .set('authorization', `Bearer ${session.token}`)
      .set('content-type', 'application/json')
      .send(JSON.stringify({ path: 'big', content: 'x'.repeat(17 * 1024 * 1024) }));
    expect(huge.status).toBe(413);
    expectEnvelope(huge.body, 'BODY_TOO_LARGE', 'validation_error');
    const xml = await t.http
      .post(`/v1/sessions/${session.id}/tools/read_file`)
      .set('authorization', `Bearer ${session.token}`)
      .set('content-type', 'application/xml')
      .send('<path>a</path>');
    expect(xml.status).toBe(415);
    expectEnvelope(xml.body, 'UNSUPPORTED_MEDIA_TYPE', 'validation_error');
  });

  it('422 user_error when the tool cannot do it (binary file)', async () => {
    const res = await t.call(session, 'read_file', { path: 'bin.dat' });
    expect(res.status).toBe(422);
    expectEnvelope(res.body, 'BINARY_FILE', 'user_error');
  });

  it('504 timeout when a tool outlives its limit, and the tool sees its signal aborted', async () => {
    const res = await t.call(session, 'slow_tool', {});
    expect(res.status).toBe(504);
    expectEnvelope(res.body, 'TIMEOUT', 'timeout');
  });

  it('500 system_error only for a bug, without leaking its message', async () => {
    const res = await t.call(session, 'buggy_tool', {});
    expect(res.status).toBe(500);
    expectEnvelope(res.body, 'INTERNAL_ERROR', 'system_error');
    expect(JSON.stringify(res.body)).not.toContain('/very/secret');
  });

  it('malformed input of any kind is a 4xx, never a 500', async () => {
    const auth = { authorization: `Bearer ${session.token}` };
    const url = `/v1/sessions/${session.id}/tools/read_file`;
    const bodies: [string, string][] = [
      ['application/json', '{"path": "a.txt"'],
      ['application/json', ''],
      ['application/json', 'null'],
      ['application/json', '[]'],
      ['application/json', '"a.txt"'],
      ['application/json', '42'],
      ['application/json', '{"path": {"$gt": ""}}'],
      ['application/json', '{"__proto__": {"polluted": true}, "path": "a.txt"}'],
      ['application/json', '{"constructor": {"prototype": {"x": 1}}}'],
      ['application/json', '{"path": "a.txt", "limit": 1e309}'],
      ['application/json', '{"path": "a.txt", "offset": -1}'],
      ['application/json', '{"path": "a.txt", "offset": 1.5}'],
      ['application/json', '{"path": "\\u0000"}'],
      ['application/json', `{"path": "${'a/'.repeat(5000)}"}`],
      ['text/plain', 'path=a.txt'],
      ['application/x-www-form-urlencoded', 'path=a.txt'],
    ];
    for (const [type, body] of bodies) {
      const res = await t.http.post(url).set(auth).set('content-type', type).send(body);
      expect(res.status, `${type} ${body.slice(0, 60)}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${type} ${body.slice(0, 60)}`).toBeLessThan(500);
      expect(res.body.success).toBe(false);
    }
    // Invalid UTF-8 bytes inside a JSON string.
    const badUtf8 = Buffer.concat([
      Buffer.from('{"path": "'),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from('"}'),
    ]);
    const res = await t.http.post(url).set(auth).set('content-type', 'application/json').send(badUtf8);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('bad query strings on listing routes are 400 with the envelope', async () => {
    for (const url of [
      '/v1/audit?limit=0',
      '/v1/audit?limit=abc',
      '/v1/audit?since=yesterday',
      '/v1/audit?status=maybe',
    ]) {
      const res = await t.http.get(url).set('authorization', `Bearer ${ADMIN_KEY}`);
      expect(res.status, url).toBe(400);
      expectEnvelope(res.body, 'VALIDATION_FAILED', 'validation_error');
    }
  });

  it('400 in the envelope for a URL that is not valid percent-encoding (Fastify rejects it before routing)', async () => {
    for (const url of ['/healthz%', '/v1/sessions/%E0%A4%A']) {
      const res = await t.http.get(url);
      expect(res.status, url).toBe(400);
      expectEnvelope(res.body, 'BAD_REQUEST', 'validation_error');
      expect(res.body.error.suggestion).toMatch(/encodeURIComponent/);
    }
    // A path parameter past the router's length limit: the envelope, not a 500.
    const long = await t.admin(t.http.get(`/v1/sessions/${'a'.repeat(300)}`));
    expect(long.status).toBe(400);
    expectEnvelope(long.body, 'BAD_REQUEST', 'validation_error');
  });
});
