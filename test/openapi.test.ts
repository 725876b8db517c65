import { readFileSync } from 'node:fs';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import spectralRulesets from '@stoplight/spectral-rulesets';
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

  it('is clean under Redocly’s recommended rules and Spectral’s spectral:oas: 0 errors, 0 warnings', async () => {
    const source = readFileSync(OPENAPI_FILE, 'utf8');
    const config = await createConfig({ extends: ['recommended'] });
    const redocly = await lintFromString({ source, absoluteRef: OPENAPI_FILE, config });
    expect(
      redocly.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
    ).toEqual([]);

    const spectral = new spectralCore.Spectral();
    spectral.setRuleset({ extends: [[spectralRulesets.oas, 'recommended']] } as never);
    const results = await spectral.run(new spectralCore.Document(source, spectralParsers.Json, OPENAPI_FILE));
    // Severity 0 is error, 1 warning; hints and infos are not findings.
    const findings = results.filter((r) => r.severity <= 1);
    expect(findings.map((r) => `${r.code}: ${r.message} at ${r.path.join('.')}`)).toEqual([]);
  }, 60_000);

  it('publishes every field with a default as optional, in every request body and parameter', () => {
    const doc = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));
    const problems: string[] = [];
    const walk = (schema: unknown, where: string): void => {
      if (Array.isArray(schema)) return schema.forEach((item, i) => walk(item, `${where}[${i}]`));
      if (typeof schema !== 'object' || schema === null) return;
      const node = schema as Record<string, unknown>;
      const properties = (node.properties ?? {}) as Record<string, { default?: unknown }>;
      for (const name of (node.required as string[] | undefined) ?? []) {
        if (properties[name] && 'default' in properties[name]) problems.push(`${where}: ${name}`);
      }
      for (const [key, value] of Object.entries(node)) walk(value, `${where}.${key}`);
    };
    let bodies = 0;
    for (const [route, operations] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [type, media] of Object.entries(
          (operation.requestBody?.content ?? {}) as Record<string, any>,
        )) {
          bodies++;
          walk(media.schema, `${method} ${route} ${type}`);
        }
        for (const parameter of operation.parameters ?? []) {
          if (parameter.required && parameter.schema && 'default' in parameter.schema)
            problems.push(`${method} ${route} parameter ${parameter.name}`);
        }
      }
    }
    expect(bodies).toBeGreaterThan(30);
    expect(problems).toEqual([]);
    // Every tool operation carries its tool's examples.
    const read = doc.paths['/v1/sessions/{id}/tools/read_file'].post.requestBody.content['application/json'];
    expect(read.schema.required).toEqual(['path']);
    expect(Object.keys(read.examples).length).toBeGreaterThan(0);
  });
});
