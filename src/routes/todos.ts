// GET /v1/sessions/{id}/todos: a session's todo list (as todo_write left it) for the operator or the session
// itself, read without a tool call: no audit row, no rate-limit budget, no approval.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { sessionForRequest } from '../http/auth.js';
import { commonErrors, SessionIdParams } from '../http/schemas.js';
import { TodoSchema } from '../store/todos.js';

export default async function todoRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { todos } = app.services;
  app.get(
    '/v1/sessions/:id/todos',
    {
      schema: {
        operationId: 'getSessionTodos',
        tags: ['sessions'],
        summary: "A session's todo list",
        description:
          'The list as the last todo_write left it (empty at first), for the admin or the session itself. Unlike a todo_read call it is not a tool call: it leaves no audit row and uses none of the session’s rate limit.',
        params: SessionIdParams,
        response: { 200: Type.Object({ todos: Type.Array(TodoSchema) }), ...commonErrors },
      },
    },
    async (request) => {
      const session = await sessionForRequest(app, request, request.params.id);
      return { todos: await todos.list(session.id) };
    },
  );
}
