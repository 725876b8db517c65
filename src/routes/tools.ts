// GET /v1/tools and /v1/tools/{name}: tool declarations; a session token sees only what it may call.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { toolgateError } from '../core/errors.js';
import { LLM_FORMATS, llmToolList, LlmToolListSchema } from '../core/formats/llm.js';
import { toolgateDeclaration } from '../core/formats/toolgate.js';
import { toolAccess } from '../core/policy/permissions.js';
import type { RegisteredTool } from '../core/registry.js';
import { commonErrors } from '../http/schemas.js';

const ToolDeclaration = Type.Object({
  name: Type.String(),
  category: Type.String(),
  description: Type.String(),
  version: Type.String(),
  tags: Type.Array(Type.String()),
  capabilities: Type.Record(Type.String(), Type.Boolean()),
  permissions: Type.Array(Type.String()),
  inputSchema: Type.Record(Type.String(), Type.Unknown()),
  outputSchema: Type.Record(Type.String(), Type.Unknown()),
  examples: Type.Array(Type.Unknown()),
  source: Type.String(),
});

export default async function toolRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { registry } = app.services;

  const visible = (request: FastifyRequest): RegisteredTool[] => {
    const principal = request.principal;
    const all = registry.list();
    return principal?.kind === 'session'
      ? all.filter((entry) => toolAccess(principal.session, entry).allowed)
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
          "Every tool's definition (format=toolgate), or declarations ready to paste into an OpenAI, Anthropic, Gemini or MCP request (format=openai|anthropic|gemini|mcp).",
        querystring: Type.Object({
          category: Type.Optional(Type.String({ minLength: 1 })),
          format: Type.Enum(['toolgate', ...LLM_FORMATS], { default: 'toolgate' }),
        }),
        response: {
          200: Type.Union([Type.Object({ tools: Type.Array(ToolDeclaration) }), LlmToolListSchema]),
          ...commonErrors,
        },
      },
    },
    async (request) => {
      const { category, format } = request.query;
      const tools = visible(request).filter(
        (entry) => category === undefined || entry.tool.category === category,
      );
      if (format !== 'toolgate') return llmToolList(format, tools);
      return { tools: tools.map(toolgateDeclaration) };
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
      return toolgateDeclaration(entry);
    },
  );
}
