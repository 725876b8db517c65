// The config file's JSON Schema as published (docs/config.schema.json, GET /v1/config-schema): the
// composed ConfigFileSchema with the header an editor needs. A config file names it in its "$schema" key
// and the editor completes, documents and checks every section as the service will.
import { ConfigFileSchema } from '../config.js';

/** The JSON Schema dialect: draft-07, which editors support widely and which has every keyword used. */
const DIALECT = 'http://json-schema.org/draft-07/schema#';

export function configJsonSchema(): Record<string, unknown> {
  return {
    $schema: DIALECT,
    title: 'toolgate config file (TOOLGATE_CONFIG)',
    description:
      'Every key is optional; a key the service does not know stops the start with a message naming it. Environment variables override some settings (README "Configuration").',
    // Through JSON: the plain schema, without TypeBox's own (non-enumerable) markers.
    ...(JSON.parse(JSON.stringify(ConfigFileSchema)) as Record<string, unknown>),
  };
}
