// GET /v1/sessions/{id}/changes: everything that changed in the workspace since the session started or
// since a checkpoint, whatever made it, as a git-format diff (`git apply` accepts it) or a JSON summary.
// The workspace_changes tool underneath: same permissions, rate limits and audit as any read; asked with
// the admin key, an operator read (http/tool-backed.ts).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { commonErrors, errorRef } from '../http/schemas.js';
import { callToolForRoute } from '../http/tool-backed.js';
import { ChangeReport } from '../snapshots/report.js';

/** The REST diff is whole: an evaluation harness applies it. */
const WHOLE_DIFF_BYTES = 1024 * 1024 * 1024;

export default async function changeRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/sessions/:id/changes',
    {
      schema: {
        operationId: 'getChanges',
        tags: ['workspace'],
        summary: "The session's changes as a git diff or a JSON summary",
        description:
          "Compares the workspace now with its state at `since` (`start`: after the seed files; or a checkpoint id). `format=diff` (default) answers text/x-diff in git format with added, deleted, renamed, mode-changed and binary files (GIT binary patch), which `git apply` applies to a copy of the starting files; `format=json` answers the per-file summary (status, lines added and removed). Runs the workspace_changes tool; with the admin key as an operator read (entry point `operator`: not rate-limited, parked or counted in the session's stats; in GET /v1/audit only with operatorReads=true).",
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
        querystring: Type.Object({
          since: Type.String({ minLength: 1, maxLength: 100, default: 'start' }),
          format: Type.Enum(['diff', 'json'], { default: 'diff' }),
        }),
        response: {
          200: {
            description: 'The diff (text/x-diff) or the summary (application/json)',
            content: {
              'text/x-diff': { schema: Type.String() },
              'application/json': { schema: Type.Omit(ChangeReport, ['diff', 'truncated']) },
            },
          },
          ...commonErrors,
          504: errorRef,
        },
      },
    },
    async (request, reply) => {
      const { since, format } = request.query;
      const data = (await callToolForRoute(
        app,
        request,
        reply,
        request.params.id,
        'workspace_changes',
        {
          since,
          format: format === 'diff' ? 'diff' : 'summary',
          max_diff_bytes: WHOLE_DIFF_BYTES,
        },
        { read: true },
      )) as ChangeReport | undefined;
      if (data === undefined) return reply;
      if (format === 'diff')
        return reply
          .code(200)
          .type('text/x-diff; charset=utf-8')
          .send(data.diff ?? '');
      return reply.code(200).type('application/json; charset=utf-8').send({
        since: data.since,
        files: data.files,
        totals: data.totals,
      });
    },
  );
}
