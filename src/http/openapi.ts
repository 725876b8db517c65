// The OpenAPI document (from the same route schemas the tools define), served at /openapi.json, with
// Swagger UI at /docs. Shared schemas (the error envelope) become named components.
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { AnyTool } from '../contract/tool.js';
import { publishDocument } from './openapi-published.js';
import { EvalCaseSchema } from '../evals/case-schema.js';
import { ErrorEnvelopeSchema } from './schemas.js';

export const API_VERSION = '1.0.0';

export async function registerOpenApi(app: FastifyInstance, tools: readonly AnyTool[]): Promise<void> {
  const categories = [...new Set(tools.map((tool) => tool.category))].sort();
  app.addSchema(ErrorEnvelopeSchema);
  // The case format of eval datasets (POST /v1/evals), published for dataset authors and their editors.
  app.addSchema(EvalCaseSchema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'toolgate',
        version: API_VERSION,
        description:
          'Sandboxed coding workspaces and tools for LLM agents. Create a session (admin key), then call tools ' +
          'with the session token. Every error has the ErrorEnvelope shape.',
      },
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'Admin key or session token' },
        },
      },
      security: [{ bearerAuth: [] }],
      tags: [
        { name: 'sessions', description: 'Sessions and their workspaces' },
        { name: 'tools', description: 'Tool declarations' },
        { name: 'files', description: 'Raw files and archives in and out of a workspace (streamed)' },
        { name: 'approvals', description: 'Calls parked until an operator approves them' },
        { name: 'observability', description: 'Audit log and statistics' },
        { name: 'health', description: 'Liveness and readiness' },
        { name: 'config', description: "The config file's JSON Schema, for editors and deploy checks" },
        { name: 'mcp', description: 'The tools over the Model Context Protocol' },
        { name: 'evals', description: 'Datasets of tool calls run against the service (docs/evals.md)' },
        ...categories.map((name) => ({ name, description: `Tools in the ${name} category` })),
      ],
    },
    transformObject: (documentObject) =>
      publishDocument(
        ('openapiObject' in documentObject
          ? documentObject.openapiObject
          : documentObject.swaggerObject) as Record<string, unknown>,
        { tools, license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' } },
      ),
    refResolver: {
      // Keep our $id as the component name (ErrorEnvelope) instead of def-0.
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  });
  // Swagger UI's routes are public like the document itself.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...(route.config ?? {}), access: 'public' };
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true }, logLevel: 'warn' });
  app.get('/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
}
