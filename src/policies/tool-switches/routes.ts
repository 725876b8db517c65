// PATCH /v1/tools/{name} and PATCH /v1/categories/{name} (admin): the operator's switches that disable a
// tool or a whole category for every session, at once and across restarts; each change is audited.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { toolgateError } from '../../lib/errors.js';
import { commonErrors } from '../../http/schemas.js';
import { CategoryView, categoryView, EnabledBody, ToolDeclaration, toolView } from '../../http/tool-views.js';
import { recordSwitch } from './record-switch.js';

export default async function toolSwitchRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { registry, switches, audit } = app.services;
  const declaration = toolView(switches);
  const view = categoryView(registry, switches);

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
      await switches.set('tool', entry.tool.name, enabled);
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

  app.patch(
    '/v1/categories/:name',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'setCategoryEnabled',
        tags: ['tools'],
        summary: 'Enable or disable a whole category for every session',
        description:
          'Admin only. Takes effect for new calls at once, persists across restarts, is audited, and shows in the tool listings and MCP tools/list.',
        params: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }),
        body: EnabledBody,
        response: { 200: CategoryView, ...commonErrors },
      },
    },
    async (request) => {
      const { name } = request.params;
      if (!registry.categories().includes(name)) {
        throw toolgateError('NOT_FOUND', `Unknown category "${name}"`, {
          suggestion: 'GET /v1/categories lists the categories.',
        });
      }
      const { enabled } = request.body;
      await switches.set('category', name, enabled);
      recordSwitch(audit, {
        kind: 'category',
        name,
        category: name,
        enabled,
        bytesIn: Number(request.headers['content-length'] ?? 0),
      });
      return view(name);
    },
  );
}
