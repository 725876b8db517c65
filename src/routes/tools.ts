// GET /v1/tools and /v1/tools/{name}: tool declarations; a session token sees only what it may call.
// The operator's PATCH of a tool's switch is in src/policies/tool-switches/routes.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { toolgateError } from '../lib/errors.js';
import { LLM_FORMATS, llmToolList, LlmToolListSchema } from '../protocols/llm.js';
import { toolAccess } from '../policies/permissions/permissions.js';
import type { RegisteredTool } from '../contract/registry.js';
import { commonErrors } from '../http/schemas.js';
import { ToolDeclaration, toolView } from '../http/tool-views.js';

export default async function toolRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { registry, switches } = app.services;
  const declaration = toolView(switches);

  // A session sees what it may call now; the admin sees every tool, disabled ones marked as such.
  const visible = (request: FastifyRequest): RegisteredTool[] => {
    const principal = request.principal;
    const all = registry.list();
    return principal?.kind === 'session'
      ? all.filter((entry) => switches.isEnabled(entry.tool) && toolAccess(principal.session, entry).allowed)
      : all;
  };

  app.get(
    '/v1/tools',
    {
      schema: {
        operationId: 'listTools',
        tags: ['tools'],
        summary: 'Tool declarations (with a session token: only the tools that session may call)',
        description:
          "Every tool's definition (format=toolgate), or declarations ready to paste into an OpenAI chat, OpenAI Responses, Anthropic, Gemini or MCP request (format=openai|openai-responses|anthropic|gemini|mcp). The Responses format also lists OpenAI's built-in tools whose calls toolgate runs (builtins); strict=true declares every tool for OpenAI's strict mode.",
        querystring: Type.Object({
          category: Type.Optional(Type.String({ minLength: 1 })),
          format: Type.Enum(['toolgate', ...LLM_FORMATS], { default: 'toolgate' }),
          strict: Type.Boolean({
            default: false,
            description:
              "format=openai|openai-responses: schemas in strict mode's subset (every property required, optional ones nullable, objects closed), with strict: true",
          }),
        }),
        response: {
          200: Type.Union([Type.Object({ tools: Type.Array(ToolDeclaration) }), LlmToolListSchema]),
          ...commonErrors,
        },
      },
    },
    async (request) => {
      const { category, format, strict } = request.query;
      const tools = visible(request).filter(
        (entry) => category === undefined || entry.tool.category === category,
      );
      // Declarations for a model hold only what can be called now.
      if (format !== 'toolgate') {
        return llmToolList(
          format,
          tools.filter((entry) => switches.isEnabled(entry.tool)),
          { strict },
        );
      }
      return { tools: tools.map(declaration) };
    },
  );

  app.get(
    '/v1/tools/:name',
    {
      schema: {
        operationId: 'getTool',
        tags: ['tools'],
        summary: 'One tool declaration',
        description:
          "One tool's definition: description, category, capabilities, input and output JSON Schemas and examples.",
        params: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 200: ToolDeclaration, ...commonErrors },
      },
    },
    async (request) => {
      const entry = visible(request).find((e) => e.tool.name === request.params.name);
      if (!entry) throw toolgateError('TOOL_NOT_FOUND', `Unknown tool "${request.params.name}"`);
      return declaration(entry);
    },
  );
}
