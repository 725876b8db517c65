import { readFileSync } from 'node:fs';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILE, renderOpenApi } from '../scripts/openapi-document.js';

describe('OpenAPI document', () => {
  it('the checked-in openapi/openapi.json is current (run `npm run openapi` after changing routes or tools)', async () => {
    const generated = await renderOpenApi();
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(generated);
  });

  it('is a valid OpenAPI 3.1 document with one operation per tool, tagged by category', async () => {
    const source = readFileSync(OPENAPI_FILE, 'utf8');
    const config = await createConfig({ extends: ['minimal'] });
    const problems = await lintFromString({ source, absoluteRef: OPENAPI_FILE, config });
    const errors = problems.filter((p) => p.severity === 'error');
    expect(errors.map((e) => `${e.ruleId}: ${e.message} at ${e.location[0]?.pointer}`)).toEqual([]);
    const doc = JSON.parse(source);
    const op = doc.paths['/v1/sessions/{id}/tools/read_file'].post;
    expect(op.operationId).toBe('call_read_file');
    expect(op.tags).toEqual(['filesystem']);
    expect(op.requestBody.content['application/json'].schema.required).toContain('path');
    expect(op.responses['403'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/ErrorEnvelope',
    );
    expect(doc.components.securitySchemes.bearerAuth.scheme).toBe('bearer');
    const operationIds = Object.values(doc.paths)
      .flatMap((p) => Object.values(p as Record<string, { operationId?: string }>))
      .map((o) => o.operationId);
    expect(new Set(operationIds).size).toBe(operationIds.length);
    expect(operationIds.every((id) => typeof id === 'string')).toBe(true);
  });
});
