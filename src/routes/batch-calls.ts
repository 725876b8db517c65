// POST /v1/sessions/{id}/calls: several tool calls in one request, in toolgate, OpenAI, Anthropic or
// Gemini format, answered in the same format. Formats are read and written by src/protocols (batch.ts
// and one module per vendor), the calls run by engine/batch; this file is only HTTP.
import type { FastifyInstance } from 'fastify';
import { executeBatch } from '../engine/batch/execute.js';
import {
  BatchAnswerSchema,
  BatchBodySchema,
  MAX_BATCH_CALLS,
  parseBatch,
  renderBatch,
} from '../protocols/batch.js';
import { sessionForRequest } from '../http/auth.js';
import { clientGoneHook, turnOf } from '../http/call-response.js';
import { commonErrors, errorRef, SessionIdParams } from '../http/schemas.js';
import { skipValidation } from '../http/validator-compiler.js';

export default async function batchCallRoutes(app: FastifyInstance): Promise<void> {
  const { pipeline, registry, turns } = app.services;
  app.post<{ Params: { id: string } }>(
    '/v1/sessions/:id/calls',
    {
      validatorCompiler: skipValidation,
      schema: {
        operationId: 'callBatch',
        tags: ['tools'],
        summary: 'Run several tool calls (toolgate, OpenAI, OpenAI Responses, Anthropic or Gemini format)',
        description:
          `Up to ${MAX_BATCH_CALLS} calls. Read-only calls run concurrently; calls that write or execute ` +
          'run in order, after every earlier call and before every later one. Results keep the input order ' +
          'and come back in the format of the request; a failed call is an error result, not a failed batch.',
        params: SessionIdParams,
        body: BatchBodySchema,
        response: { 200: BatchAnswerSchema, ...commonErrors, 413: errorRef },
      },
    },
    async (request, reply) => {
      const session = await sessionForRequest(app, request, request.params.id);
      const batch = parseBatch(request.body, registry);
      const results = await executeBatch({ pipeline, registry, turns }, batch, {
        session,
        caller: request.principal!.kind,
        signal: clientGoneHook(reply),
        turn: turnOf(request),
      });
      return renderBatch(batch, results);
    },
  );
}
