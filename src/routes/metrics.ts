// GET /metrics: Prometheus text exposition. Admin-only (Prometheus sends the admin key as a bearer
// token via `authorization.credentials`): tool names and call counts describe what agents are doing.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { commonErrors } from '../http/schemas.js';

export default async function metricsRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/metrics',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'metrics',
        tags: ['observability'],
        summary: 'Prometheus metrics (text exposition format); needs the admin key',
        response: {
          200: Type.String({ description: 'Prometheus text format 0.0.4' }),
          ...commonErrors,
        },
      },
    },
    async (_request, reply) => {
      const { contentType, body } = await app.services.metrics.render();
      return reply.type(contentType).send(body);
    },
  );
}
