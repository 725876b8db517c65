// GET /v1/categories and PATCH /v1/categories/{name} (admin): the tool categories and the operator's
// switch that disables a whole category for every session, at once and across restarts.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { toolgateError } from '../lib/errors.js';
import { toolAccess } from '../policies/permissions/permissions.js';
import { recordSwitch } from '../policies/tool-switches/record-switch.js';
import { commonErrors } from '../http/schemas.js';
import { EnabledBody } from './tools.js';

const CategoryView = Type.Object({
  name: Type.String(),
  enabled: Type.Boolean({ description: 'false when the operator disabled the category' }),
  tools: Type.Array(Type.String()),
  enabledTools: Type.Array(Type.String({ description: 'The tools that can be called now' })),
});

export default async function categoryRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { registry, switches, audit } = app.services;

  const view = (name: string) => {
    const tools = registry.list().filter((entry) => entry.tool.category === name);
    return {
      name,
      enabled: !switches.isDisabled('category', name),
      tools: tools.map((entry) => entry.tool.name),
      enabledTools: tools.filter((entry) => switches.isEnabled(entry.tool)).map((entry) => entry.tool.name),
    };
  };

  app.get(
    '/v1/categories',
    {
      schema: {
        operationId: 'listCategories',
        tags: ['tools'],
        summary: 'Tool categories and whether each is enabled',
        description:
          'Every category with its tools (with a session token: only the tools that session may call) and the operator switch of each.',
        response: { 200: Type.Object({ categories: Type.Array(CategoryView) }), ...commonErrors },
      },
    },
    async (request) => {
      const principal = request.principal;
      const categories = registry.categories().map(view);
      if (principal?.kind !== 'session') return { categories };
      const allowed = new Set(
        registry
          .list()
          .filter((entry) => toolAccess(principal.session, entry).allowed)
          .map((entry) => entry.tool.name),
      );
      return {
        categories: categories
          .map((category) => ({
            ...category,
            tools: category.tools.filter((name) => allowed.has(name)),
            enabledTools: category.enabledTools.filter((name) => allowed.has(name)),
          }))
          .filter((category) => category.tools.length > 0),
      };
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
      switches.set('category', name, enabled);
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
