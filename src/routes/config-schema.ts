// GET /v1/config-schema: the config file's JSON Schema (the same document as docs/config.schema.json),
// public because it is static and says nothing about this deployment: an editor or a deploy pipeline
// validates a config file against the service it will run on.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { configJsonSchema, ConfigJsonSchemaDocument } from '../config/json-schema.js';

export default async function configSchemaRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const document = configJsonSchema();
  app.get(
    '/v1/config-schema',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'getConfigSchema',
        tags: ['config'],
        summary: "The config file's JSON Schema",
        description:
          'The JSON Schema of the config file (TOOLGATE_CONFIG), generated from the schema the service checks ' +
          'it with; the same as docs/config.schema.json. A config file may name it in its `"$schema"` key.',
        security: [],
        response: { 200: ConfigJsonSchemaDocument },
      },
    },
    async () => document,
  );
}
