// GET /v1/sessions/{id}/interactive: a session's shells, terminals (with their screens) and kernels, for
// the operator (the console's session view) or the session itself. Not a tool call: no audit row, no
// stats, no rate-limit budget, no approval; and the runtime is neither started nor kept alive by it.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { sessionForRequest } from '../http/auth.js';
import { commonErrors, SessionIdParams } from '../http/schemas.js';
import { InteractiveView, interactiveView } from '../jobs/interactive-view.js';

export default async function interactiveRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { runtimes, shells } = app.services;
  app.get(
    '/v1/sessions/:id/interactive',
    {
      schema: {
        operationId: 'getSessionInteractive',
        tags: ['sessions'],
        summary: "A session's shells, terminals and kernels",
        description:
          'What shell_list, terminal_list and kernel_list show, with each terminal’s rendered screen, for the admin or the session itself. Unlike those tools it is not a tool call: no audit row, no stats, none of the session’s rate limit. It reads the runtime only while it runs (a stopped runtime is not started: the lists are empty, shells the session had are reported dead) and does not count as the session’s activity: watching keeps no runtime from its idle stop and reads no terminal output (what is unread stays for the next write_stdin).',
        params: SessionIdParams,
        response: { 200: InteractiveView, ...commonErrors },
      },
    },
    async (request) => {
      const session = await sessionForRequest(app, request, request.params.id);
      return interactiveView(runtimes.get(session.id), shells);
    },
  );
}
