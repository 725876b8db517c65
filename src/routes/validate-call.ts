// POST /v1/sessions/{id}/tools/{name}/validate: would this call be accepted? Checks the tool exists and
// is enabled, the input against its schema and the session's permissions — without running it, without
// an audit row and without spending rate-limit budget. A failure is the same error the call would get.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { sessionForRequest } from '../http/auth.js';
import { requestBytes } from '../http/call-response.js';
import { commonErrors, SessionIdParams } from '../http/schemas.js';
import { skipValidation } from '../http/validator-compiler.js';

const ValidationResult = Type.Object({
  success: Type.Literal(true),
  valid: Type.Literal(true),
  tool: Type.String(),
  category: Type.String(),
  input: Type.Unknown({ description: 'The input as the tool would get it, defaults applied' }),
  permissions: Type.Array(Type.String(), { description: 'What the call needs (the session has them)' }),
});

export default async function validateCallRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { pipeline } = app.services;

  app.post(
    '/v1/sessions/:id/tools/:name/validate',
    {
      validatorCompiler: skipValidation,
      schema: {
        operationId: 'validateToolCall',
        tags: ['tools'],
        summary: 'Check a tool call (schema, permissions) without running it',
        description:
          'Answers 200 with the input as the tool would get it (defaults applied), or the error envelope the call would get (400 with every bad field, 403, 404). Nothing runs, nothing is audited, no rate budget is spent.',
        params: Type.Object({
          ...SessionIdParams.properties,
          name: Type.String({ minLength: 1, maxLength: 100 }),
        }),
        body: Type.Unknown({ description: "The tool's input, as for a call" }),
        response: { 200: ValidationResult, ...commonErrors },
      },
    },
    async (request) => {
      const session = await sessionForRequest(app, request, request.params.id);
      const { entry, input } = await pipeline.check({
        toolName: request.params.name,
        input: request.body,
        session,
        caller: request.principal!.kind,
        entryPoint: 'rest',
        bytesIn: requestBytes(request),
      });
      return {
        success: true as const,
        valid: true as const,
        tool: entry.tool.name,
        category: entry.tool.category,
        input,
        permissions: [...entry.permissions],
      };
    },
  );
}
