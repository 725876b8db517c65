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
        description:
          'Calls by tool and outcome, durations, rate-limit refusals, sessions, jobs, session runtimes, free disk and per-session disk use, and the process defaults, in the Prometheus text format.',
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
