import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, type TestApp } from '../helpers/app.js';
import { startAppWithConfig } from '../ops/with-config.js';

// Property-based hardening: every registered tool's schema and every route in the OpenAPI document get
// random and hostile inputs. Bad input must give 4xx (never a 500), every request must finish, and the
// server must still serve normal calls afterwards. Tools added later are covered automatically.

const RUNS_PER_TOOL = { random: 10, shaped: 30 };
const RUNS_PER_ROUTE = 25;
const REQUEST_TIMEOUT_MS = 10_000;
let inputsTried = 0;

const hostileString = fc.oneof(
  fc.constantFrom(
    '../../../etc/passwd',
    '/etc/passwd',
    '..',
    '.',
    '/',
    '',
    '\0',
    'a\0b',
    '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
    '..%00/',
    '~',
    '~root/.ssh',
    '$HOME',
    '${PWD}/../',
    '\\..\\..\\windows',
    'C:\\Windows\\system32',
    '../'.repeat(60),
    'x/'.repeat(300),
    'a'.repeat(4097),
    'é'.repeat(200),
    '.git/config',
    '**/*',
    '[',
    '(?<',
    '(a+)+$',
    'a{1,99999999}',
    '\u202egnp.exe',
    '\uD800',
    '😀/😀',
    '__proto__',
    'constructor',
    'prototype',
    '-rf',
    '--help',
    '; rm -rf /',
    '$(id)',
    '`id`',
    '\r\n\r\nHTTP/1.1 200 OK',
    '<script>alert(1)</script>',
    'null',
    'NaN',
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.integer(),
  fc.constantFrom(-1, 0, 2 ** 31, Number.MAX_SAFE_INTEGER, 1e308, -1e308, 0.5),
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileString, { maxLength: 5 }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 3 }),
  fc.jsonValue({ maxDepth: 3 }),
);

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  enum?: unknown[];
}

/** Mostly values of the declared type (so calls get past validation into the tool), sometimes anything. */
function shaped(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  const typed = (): fc.Arbitrary<unknown> => {
    if (schema.enum) return fc.constantFrom(...schema.enum);
    switch (schema.type) {
      case 'string':
        return hostileString;
      case 'integer':
        return fc.oneof(fc.integer({ min: -5, max: 5000 }), fc.constantFrom(0, 1, 2 ** 31, -(2 ** 31)));
      case 'number':
        return fc.oneof(fc.double({ noNaN: true }), fc.integer({ min: -5, max: 5000 }));
      case 'boolean':
        return fc.boolean();
      case 'array':
        return depth > 2
          ? fc.constant([])
          : fc.array(shaped(schema.items ?? {}, depth + 1), { maxLength: 4 });
      case 'object':
        return depth > 2 ? fc.constant({}) : shapedObject(schema, depth + 1);
      default:
        return hostileValue;
    }
  };
  return fc.oneof({ weight: 4, arbitrary: typed() }, { weight: 1, arbitrary: hostileValue });
}

function shapedObject(schema: JsonSchema, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(schema.properties ?? {});
  const record = fc.record(Object.fromEntries(keys.map((k) => [k, shaped(schema.properties![k], depth)])), {
    requiredKeys: [],
  });
  return fc.oneof(
    { weight: 5, arbitrary: record },
    {
      weight: 1,
      arbitrary: fc.tuple(record, hostileString, hostileValue).map(([r, k, v]) => ({ ...r, [k]: v })),
    },
  );
}

// A lone surrogate cannot be percent-encoded as UTF-8; send the raw (invalid) bytes instead.
const encodePathParam = (value: string): string => {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
};

// supertest only sends objects itself; primitives (true, 3, "x") are valid JSON bodies too.
const json = (value: unknown): string => JSON.stringify(value) ?? 'null';

const anyBody = fc.oneof(fc.jsonValue({ maxDepth: 4 }), hostileValue);

describe('fuzzing: every tool schema and every route with random and hostile input', () => {
  let t: TestApp;
  let session: { id: string; token: string };

  beforeAll(async () => {
    // Forged tokens are part of the input; lift the per-IP auth-failure throttle so later inputs still
    // reach validation and the tools instead of all getting 429.
    t = await startAppWithConfig({ policy: { authFailuresPerWindow: 1_000_000 } });
    // read-write: every tool is fuzzed, but nothing in the execution category can run.
    session = await t.createSession({
      profile: 'read-write',
      files: { 'src/a.ts': 'export const a = 1;\n' },
    });
  });
  afterAll(async () => {
    console.info(`fuzz: ${inputsTried} inputs, no 5xx, no hang`);
    await t.close();
  });

  const expectNoServerError = (res: { status: number; text: string }, context: string) => {
    if (res.status >= 500) throw new Error(`${context} → ${res.status}: ${res.text.slice(0, 500)}`);
  };

  it('gives every tool random and schema-shaped hostile input without a 5xx or a hang', async () => {
    const tools = t.app.services.registry.list().map((entry) => entry.tool);
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools) {
      const send = async (input: unknown) => {
        inputsTried++;
        const res = await t.http
          .post(`/v1/sessions/${session.id}/tools/${tool.name}`)
          .set('authorization', `Bearer ${session.token}`)
          .set('content-type', 'application/json')
          .send(json(input))
          .timeout(REQUEST_TIMEOUT_MS)
          .catch((err: Error) => {
            throw new Error(`${tool.name} with ${JSON.stringify(input)?.slice(0, 300)}: ${err.message}`);
          });
        expectNoServerError(res, `${tool.name} ${JSON.stringify(input)?.slice(0, 300)}`);
        expect(res.status === 200 || (res.status >= 400 && res.status < 500)).toBe(true);
        if (res.status !== 200) expect(res.body.success).toBe(false);
      };
      await fc.assert(fc.asyncProperty(anyBody, send), { numRuns: RUNS_PER_TOOL.random });
      await fc.assert(fc.asyncProperty(shapedObject(tool.input as JsonSchema), send), {
        numRuns: RUNS_PER_TOOL.shaped,
      });
    }
  }, 120_000);

  it('gives every route hostile path parameters, query strings, bodies and credentials without a 5xx', async () => {
    const doc = (await t.http.get('/openapi.json')).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.entries(doc.paths).flatMap(([route, methods]) =>
      Object.keys(methods)
        .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        .map((method) => ({ route, method })),
    );
    expect(operations.length).toBeGreaterThan(5);
    // Not the tool-call routes (covered above with per-tool inputs).
    const routes = operations.filter(({ route }) => !route.includes('/tools/{'));
    const credentials = fc.constantFrom<(string | undefined)[]>(
      undefined,
      `Bearer ${ADMIN_KEY}`,
      `Bearer ${session.token}`,
      'Bearer ',
      'Bearer tgs_forged',
      'Basic YWRtaW46YWRtaW4=',
      `bearer ${ADMIN_KEY}x`,
    );
    for (const { route, method } of routes) {
      const request = fc.record({
        // The real session id only for non-GET routes: GET .../events would stream forever by design.
        param: method === 'get' ? hostileString : fc.oneof(fc.constant(session.id), hostileString),
        query: fc.dictionary(fc.string({ maxLength: 12 }), hostileString, { maxKeys: 4 }),
        body: anyBody,
        auth: credentials,
      });
      await fc.assert(
        fc.asyncProperty(request, async ({ param, query, body, auth }) => {
          inputsTried++;
          const url = route.replace(/\{[^}]+\}/g, () => encodePathParam(param));
          const verb = method as 'get' | 'post' | 'put' | 'patch' | 'delete';
          let req = t.http[verb](url).query(query).timeout(REQUEST_TIMEOUT_MS);
          if (auth !== undefined) req = req.set('authorization', auth);
          if (method !== 'get' && method !== 'delete') {
            req = req.set('content-type', 'application/json').send(json(body));
          }
          const res = await req;
          expectNoServerError(res, `${method.toUpperCase()} ${url} ${JSON.stringify(body)?.slice(0, 200)}`);
        }),
        { numRuns: RUNS_PER_ROUTE },
      );
    }
  }, 120_000);

  it('answers malformed requests (bad JSON, wrong media type, unknown paths) with 4xx', async () => {
    const target = `/v1/sessions/${session.id}/tools/write_file`;
    const raw = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.constantFrom(
        '{',
        '{"path":',
        '[1,2',
        '{"a":1}}',
        'null',
        '"str"',
        '\u0000',
        '{"__proto__":{"x":1}}',
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        raw,
        fc.constantFrom(
          'application/json',
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/xml',
        ),
        async (payload, type) => {
          inputsTried++;
          const res = await t.http
            .post(target)
            .set('authorization', `Bearer ${session.token}`)
            .set('content-type', type)
            .send(payload)
            .timeout(REQUEST_TIMEOUT_MS);
          expectNoServerError(res, `raw ${type} ${JSON.stringify(payload)}`);
        },
      ),
      { numRuns: 60 },
    );
    await fc.assert(
      fc.asyncProperty(fc.webPath(), fc.constantFrom('get', 'post', 'delete'), async (urlPath, method) => {
        inputsTried++;
        const res = await t
          .admin(t.http[method as 'get' | 'post' | 'delete'](urlPath || '/'))
          .timeout(REQUEST_TIMEOUT_MS);
        expectNoServerError(res, `${method} ${urlPath}`);
      }),
      { numRuns: 40 },
    );
  });

  it('still serves normal calls after the fuzzing', async () => {
    expect((await t.http.get('/healthz')).status).toBe(200);
    expect((await t.http.get('/readyz')).status).toBe(200);
    // A fresh session: the route fuzzing may have deleted the first one (DELETE with its real id).
    const fresh = await t.createSession({ profile: 'read-write' });
    const write = await t.call(fresh, 'write_file', { path: 'after-fuzz.txt', content: 'still here\n' });
    expect(write.status).toBe(200);
    const read = await t.call(fresh, 'read_file', { path: 'after-fuzz.txt' });
    expect(read.body.data.content).toBe('still here');
  });
});
