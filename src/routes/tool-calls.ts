// POST /v1/sessions/{id}/tools/{name}: one route per registered tool, generated from its definition
// (body schema, output schema, operationId, tag), all executed by the shared pipeline.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { sessionForRequest } from '../http/auth.js';
import {
  clientGoneHook,
  idempotencyKeyOf,
  requestBytes,
  sendCallOutcome,
  turnOf,
} from '../http/call-response.js';
import { commonErrors, errorRef, PendingCallSchema, SessionIdParams } from '../http/schemas.js';
import { openCallStream, wantsEventStream } from '../http/sse.js';
import { skipValidation } from '../http/validator-compiler.js';

export default async function toolCallRoutes(app: FastifyInstance): Promise<void> {
  const { registry, pipeline } = app.services;

  const handle = async (
    request: FastifyRequest<{ Params: { id: string } }>,
    reply: FastifyReply,
    toolName: string,
  ) => {
    const session = await sessionForRequest(app, request, request.params.id);
    // Accept: text/event-stream → start, output chunks and end (the result envelope) as Server-Sent Events.
    const stream = wantsEventStream(request) ? openCallStream(reply, session.id, toolName) : undefined;
    const outcome = await pipeline.execute({
      ...stream?.callOptions,
      toolName,
      input: request.body,
      session,
      caller: request.principal!.kind,
      entryPoint: 'rest',
      bytesIn: requestBytes(request),
      signal: clientGoneHook(reply),
      idempotencyKey: idempotencyKeyOf(request),
      turn: turnOf(request),
    });
    request.callInfo = { sessionId: session.id, tool: toolName, callId: outcome.callId };
    if (stream) return stream.end(outcome);
    return sendCallOutcome(reply, request, outcome);
  };
  for (const { tool } of registry.list()) {
    app.post<{ Params: { id: string } }>(
      `/v1/sessions/:id/tools/${tool.name}`,
      {
        validatorCompiler: skipValidation,
        schema: {
          operationId: `call_${tool.name}`,
          tags: [tool.category],
          summary: tool.description.split('. ')[0],
          description: tool.description,
          params: SessionIdParams,
          body: tool.input,
          response: {
            200: Type.Object({
              success: Type.Literal(true),
              callId: Type.String(),
              data: tool.output,
              metadata: Type.Object({
                executionTimeMs: Type.Number(),
                tool: Type.String(),
                category: Type.String(),
                version: Type.String(),
                sessionId: Type.String(),
                bytesRead: Type.Optional(Type.Integer({ description: 'Workspace bytes the call read' })),
                bytesWritten: Type.Optional(Type.Integer({ description: 'Workspace bytes the call wrote' })),
                filesAccessed: Type.Optional(
                  Type.Integer({ description: 'Distinct workspace paths the call named' }),
                ),
                attempts: Type.Optional(
                  Type.Integer({ description: 'Runs of a retryable tool, when it was retried' }),
                ),
                duplicate: Type.Optional(
                  Type.Boolean({
                    description: 'Answered from an identical earlier call of the batch or turn',
                  }),
                ),
                duplicateOf: Type.Optional(Type.String({ description: 'The call whose result this is' })),
                hint: Type.Optional(Type.String()),
              }),
            }),
            202: PendingCallSchema,
            ...commonErrors,
            409: errorRef,
            413: errorRef,
            415: errorRef,
            422: errorRef,
            504: errorRef,
          },
        },
      },
      async (request, reply) => handle(request, reply, tool.name),
    );
  }

  // Any other name: through the pipeline too, so an unknown tool is a 404 TOOL_NOT_FOUND with the closest
  // names as a suggestion, and appears in the audit log like every other call.
  app.post<{ Params: { id: string; name: string } }>(
    '/v1/sessions/:id/tools/:name',
    { validatorCompiler: skipValidation, schema: { hide: true } },
    async (request, reply) => handle(request, reply, request.params.name),
  );
}
