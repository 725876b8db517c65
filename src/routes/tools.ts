// GET /v1/tools and /v1/tools/{name}: tool declarations; a session token sees only what it may call.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { toolgateError } from '../lib/errors.js';
import { LLM_FORMATS, llmToolList, LlmToolListSchema } from '../protocols/llm.js';
import { toolgateDeclaration, ToolgateDeclarationSchema } from '../protocols/toolgate.js';
import { toolAccess } from '../policies/permissions/permissions.js';
import type { RegisteredTool } from '../contract/registry.js';
import { recordSwitch } from '../policies/tool-switches/record-switch.js';
import { commonErrors } from '../http/schemas.js';

const ToolDeclaration = Type.Object({
  ...ToolgateDeclarationSchema.properties,
  enabled: Type.Boolean({ description: 'false when the operator disabled the tool or its category' }),
});

export const EnabledBody = Type.Object(
  { enabled: Type.Boolean({ description: 'false refuses new calls at once, in every session' }) },
  { additionalProperties: false },
);

export default async function toolRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { registry, switches, audit } = app.services;
  const declaration = (entry: RegisteredTool) => ({
    ...toolgateDeclaration(entry),
    enabled: switches.isEnabled(entry.tool),
  });

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
      // Declarations for a model hold only what can be called now.
      if (format !== 'toolgate') {
        return llmToolList(
          format,
          tools.filter((entry) => switches.isEnabled(entry.tool)),
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

  app.patch(
    '/v1/tools/:name',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'setToolEnabled',
        tags: ['tools'],
        summary: 'Enable or disable one tool for every session',
        description:
          'Admin only. Takes effect for new calls at once, persists across restarts, is audited, and shows in the tool listings and MCP tools/list.',
        params: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }),
        body: EnabledBody,
        response: { 200: ToolDeclaration, ...commonErrors },
      },
    },
    async (request) => {
      const entry = registry.get(request.params.name);
      if (!entry) throw toolgateError('TOOL_NOT_FOUND', `Unknown tool "${request.params.name}"`);
      const { enabled } = request.body;
      switches.set('tool', entry.tool.name, enabled);
      recordSwitch(audit, {
        kind: 'tool',
        name: entry.tool.name,
        category: entry.tool.category,
        enabled,
        bytesIn: Number(request.headers['content-length'] ?? 0),
      });
      return declaration(entry);
    },
  );
}
