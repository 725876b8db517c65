// The config file's published JSON Schema (docs/config.schema.json): current with the composed schema,
// and of the same verdict as loadConfig when an editor's validator (ajv, draft-07) reads it.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { CONFIG_SCHEMA_FILE, renderConfigSchema } from '../scripts/config-schema-document.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { tempDir } from './helpers/app.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const validate = new Ajv({ allErrors: true }).compile(
  JSON.parse(readFileSync(CONFIG_SCHEMA_FILE, 'utf8')) as object,
);

function loadText(content: unknown) {
  const file = path.join(tempDir(), 'config.json');
  writeFileSync(file, JSON.stringify(content));
  return loadConfig({ TOOLGATE_CONFIG: file });
}

describe('config JSON Schema', () => {
  it('the checked-in docs/config.schema.json is current (run `npm run openapi` after changing a config section)', () => {
    expect(readFileSync(CONFIG_SCHEMA_FILE, 'utf8')).toBe(renderConfigSchema());
  });

  it('accepts the shipped examples, as loadConfig does', () => {
    for (const example of ['docker/config.example.json', 'docker/runtime-images/images.json']) {
      const content = JSON.parse(readFileSync(path.join(ROOT, example), 'utf8')) as unknown;
      expect(validate(content), `${example}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(() => loadConfig({ TOOLGATE_CONFIG: path.join(ROOT, example) })).not.toThrow();
    }
  });

  it('refuses what loadConfig refuses: an unknown key, a wrong type, an unknown backend', () => {
    const bad = [
      { limits: { readMaxBytez: 5 } },
      { sessions: { defaultTtlSeconds: 'a day' } },
      { runtimeBackend: { type: 'podman' } },
      { profiles: { p: { permissions: ['fly'] } } },
      { mcpServers: { memory: { command: 'node', callTimeoutMs: 0 } } },
    ];
    for (const content of bad) {
      expect(validate(content), JSON.stringify(content)).toBe(false);
      expect(() => loadText(content), JSON.stringify(content)).toThrow(ConfigError);
    }
  });

  it('lets a config file name its schema in "$schema" (ignored by the service)', () => {
    const config = loadText({ $schema: './config.schema.json', limits: { outputMaxBytes: 4096 } });
    expect(config.limits.outputMaxBytes).toBe(4096);
    expect(config).not.toHaveProperty('$schema');
    expect(validate({ $schema: 'https://example.invalid/config.schema.json' })).toBe(true);
    expect(() => loadText({ $schema: 5 })).toThrow(/\/\$schema: must be string/);
  });
});
