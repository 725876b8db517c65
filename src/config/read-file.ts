// Reading the config file (TOOLGATE_CONFIG): JSON, checked against the composed schema, every problem
// named by its key in one line.
import { readFileSync } from 'node:fs';
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { ConfigError } from './error.js';

/** The sub-schema a validation error's schemaPath (`#/properties/a/…`) points at, if it can be followed. */
function schemaAt(
  root: TSchema,
  pointer: string,
): { patternProperties?: Record<string, unknown> } | undefined {
  let node: unknown = root;
  for (const part of pointer.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return typeof node === 'object' && node !== null ? node : undefined;
}

export function readConfigFile<T extends TSchema>(file: string, schema: T): Static<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`TOOLGATE_CONFIG: cannot read ${file}: ${(err as Error).message}`);
  }
  const check = Compile(schema);
  if (!check.Check(parsed)) {
    const errors = [...check.Errors(parsed)];
    const problems = errors.flatMap((e) => {
      const extra = (e.params as { additionalProperties?: string[] }).additionalProperties;
      const where = e.instancePath || '/';
      if (extra) {
        const keys = extra.map((k) => `"${k}"`).join(', ');
        // A table keyed by name (images, apiKeys, mcpServers…): say what its keys must look like.
        const patterns = Object.keys(schemaAt(schema, e.schemaPath)?.patternProperties ?? {});
        const rule = patterns.length > 0 ? ` (keys must match ${patterns.join(' or ')})` : '';
        return [`${where}: unknown key(s) ${keys}${rule}`];
      }
      // `additionalProperties: false` also reports each extra key as "schema is false" at its own path;
      // the line above already names it.
      if (e.keyword === 'boolean') return [];
      return [`${where}: ${e.message}`];
    });
    // One line, so a process supervisor's log shows the whole reason.
    throw new ConfigError(`TOOLGATE_CONFIG ${file} is invalid: ${[...new Set(problems)].join('; ')}`);
  }
  return parsed as Static<T>;
}
