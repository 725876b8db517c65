// Reading the config file (TOOLGATE_CONFIG): JSON, checked against the composed schema, every problem
// named by its key in one line.
import { readFileSync } from 'node:fs';
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { ConfigError } from './error.js';

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
      if (extra) return [`${where}: unknown key(s) ${extra.map((k) => `"${k}"`).join(', ')}`];
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
