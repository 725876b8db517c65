// GET /v1/categories: the tool categories and the operator's switch of each. The operator's PATCH of a
// category's switch is in src/policies/tool-switches/routes.ts.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { toolAccess } from '../policies/permissions/permissions.js';
import { commonErrors } from '../http/schemas.js';
import { categoryView, CategoryView } from '../http/tool-views.js';

export default async function categoryRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { registry, switches } = app.services;

  const view = categoryView(registry, switches);

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
}
