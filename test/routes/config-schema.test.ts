import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_SCHEMA_FILE } from '../../scripts/config-schema-document.js';
import { injectApp, type InjectApp } from '../helpers/app.js';

describe('GET /v1/config-schema', () => {
  let t: InjectApp;
  beforeAll(async () => {
    t = await injectApp();
  });
  afterAll(() => t.close());

  it('answers the published config JSON Schema without a token, whole', async () => {
    const res = await t.http.get('/v1/config-schema');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(JSON.parse(readFileSync(CONFIG_SCHEMA_FILE, 'utf8')));
    expect(Object.keys(res.body.properties)).toContain('runtimeBackend');
    expect(res.body.properties.limits.properties.readMaxBytes).toMatchObject({
      type: 'integer',
      minimum: 1024,
    });
  });
});
