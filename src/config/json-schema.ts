// The config file's JSON Schema as published (docs/config.schema.json, GET /v1/config-schema): the
// composed ConfigFileSchema with the header an editor needs. A config file names it in its "$schema" key
// and the editor completes, documents and checks every section as the service will.
import { Type, type Static } from 'typebox';
import { ConfigFileSchema } from '../config.js';

/** The JSON Schema dialect: draft-07, which editors support widely and which has every keyword used. */
const DIALECT = 'http://json-schema.org/draft-07/schema#';

/** The published document's outline (what GET /v1/config-schema declares it answers). */
export const ConfigJsonSchemaDocument = Type.Object(
  {
    $schema: Type.String({ description: 'The JSON Schema dialect (draft-07)' }),
    title: Type.String(),
    description: Type.String(),
    type: Type.Literal('object'),
    properties: Type.Record(Type.String(), Type.Unknown(), { description: 'The sections, by key' }),
  },
  { additionalProperties: true, description: 'A JSON Schema (draft-07) of the config file' },
);

export function configJsonSchema(): Static<typeof ConfigJsonSchemaDocument> {
  return {
    $schema: DIALECT,
    title: 'toolgate config file (TOOLGATE_CONFIG)',
    description:
      'Every key is optional; a key the service does not know stops the start with a message naming it. Environment variables override some settings (README "Configuration").',
    // Through JSON: the plain schema, without TypeBox's own (non-enumerable) markers.
    ...(JSON.parse(JSON.stringify(ConfigFileSchema)) as {
      type: 'object';
      properties: Record<string, unknown>;
    }),
  };
}
