// /v1/evals (admin): datasets run against this service in the background — shipped datasets by name
// (evals/) or cases in the body — optionally only some tools, against several variants (A/B) and
// compared with an earlier run; GET the run for its progress and, once done, its report (JSON, or
// JUnit XML at /junit). The runner drives the service through its own HTTP routes (injected, no
// socket), so every case takes the path a client's call takes. docs/evals.md
import path from 'node:path';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from 'typebox';
import { parseDataset, type Dataset } from '../evals/dataset.js';
import { EvalRuns } from '../evals/eval-runs.js';
import { junitXml } from '../evals/junit.js';
import { EvalRunSchema, type EvalRun } from '../evals/run-schema.js';
import { DEFAULT_CONCURRENCY } from '../evals/runner.js';
import { loadShippedDatasets, shippedDatasetFiles } from '../evals/shipped.js';
import { injectTransport } from '../evals/transport.js';
import { DEFAULT_VARIANT, VariantSchema } from '../evals/variant.js';
import { toolgateError } from '../lib/errors.js';
import { commonErrors, errorRef } from '../http/schemas.js';
import { schemaValidatorCompiler } from '../http/validator-compiler.js';

const RunSummary = Type.Object({
  ...Type.Omit(EvalRunSchema, ['report']).properties,
  passRate: Type.Union([Type.Number(), Type.Null()], { description: 'Over every variant, once done' }),
});

const RunView = Type.Object({ ...RunSummary.properties, report: EvalRunSchema.properties.report });

const StartBody = Type.Object(
  {
    datasets: Type.Optional(
      Type.Array(Type.String({ pattern: '^[A-Za-z0-9._-]{1,100}$' }), {
        maxItems: 50,
        description: 'Shipped datasets by name (GET /v1/evals lists them)',
      }),
    ),
    cases: Type.Optional(
      Type.Array(Type.Ref('EvalCase'), {
        maxItems: 5000,
        description: 'Cases inline (the dataset "inline")',
      }),
    ),
    tools: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 200 })),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 16, default: DEFAULT_CONCURRENCY })),
    variants: Type.Optional(
      Type.Array(VariantSchema, {
        minItems: 1,
        maxItems: 4,
        description: 'Configurations side by side (A/B)',
      }),
    ),
    compareTo: Type.Optional(
      Type.String({ description: 'An earlier run: regressions and fixes against it' }),
    ),
  },
  { additionalProperties: false },
);

// The body as documented names the EvalCase component; as validated, each case is checked by
// parseDataset, whose error names the case and the field.
const StartBodyChecked = Type.Object(
  { ...StartBody.properties, cases: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 5000 })) },
  { additionalProperties: false },
);
const startValidatorCompiler: FastifySchemaCompiler<TSchema> = (route) =>
  schemaValidatorCompiler(route.httpPart === 'body' ? { ...route, schema: StartBodyChecked } : route);

const RunParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

const passRateOf = (run: EvalRun): number | null => {
  const variants = run.report?.variants ?? [];
  const total = variants.reduce((n, v) => n + v.total, 0);
  return total === 0
    ? null
    : Math.round((variants.reduce((n, v) => n + v.passed, 0) / total) * 10000) / 10000;
};

const summary = (run: EvalRun) => {
  const { report: _report, ...rest } = run;
  return { ...rest, passRate: passRateOf(run) };
};

export default async function evalRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { config, adminKey } = app.services;
  const runs = await EvalRuns.open(path.join(config.dataDir, 'evals'), app.log);
  // Before the server stops taking requests: the runs' cases are requests to it.
  app.addHook('preClose', async () => runs.close());
  const transport = injectTransport(fastify);

  app.post(
    '/v1/evals',
    {
      config: { access: 'admin' },
      validatorCompiler: startValidatorCompiler,
      schema: {
        operationId: 'startEvalRun',
        tags: ['evals'],
        summary: 'Run eval datasets against this service, in the background',
        description:
          'Admin only. Each case runs in a fresh session through the real routes (any entry format), cases in ' +
          'parallel, sessions removed afterwards. Answers 202 with the run; poll GET /v1/evals/{id}.',
        body: StartBody,
        response: { 202: RunSummary, ...commonErrors, 409: errorRef },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const datasets: Dataset[] = await loadShippedDatasets(body.datasets ?? []);
      if (body.cases && body.cases.length > 0)
        datasets.push(parseDataset('inline', JSON.stringify(body.cases), 'json'));
      if (datasets.length === 0) {
        throw toolgateError('VALIDATION_FAILED', 'Name shipped datasets or send cases', {
          suggestion:
            'Send {"datasets": ["edit-cascade"]} or {"cases": [{"name": "…", "tool": "…", "input": {}}]}.',
        });
      }
      const variants = body.variants ?? [DEFAULT_VARIANT];
      if (new Set(variants.map((v) => v.name)).size !== variants.length) {
        throw toolgateError('VALIDATION_FAILED', 'Variant names must differ');
      }
      const run = runs.start({
        datasets,
        targets: variants.map((variant) => ({ variant, transport, adminToken: adminKey.key })),
        tools: body.tools ?? [],
        concurrency: body.concurrency ?? DEFAULT_CONCURRENCY,
        ...(body.compareTo ? { compareTo: body.compareTo } : {}),
      });
      return reply.code(202).send(summary(run));
    },
  );

  app.get(
    '/v1/evals',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'listEvalRuns',
        tags: ['evals'],
        summary: 'Eval runs (newest first) and the shipped datasets',
        description:
          'Admin only. Every run kept (the newest 50 finished ones and those running) without its report, with its ' +
          'progress and overall pass rate; and the names of the datasets shipped with the service.',
        response: {
          200: Type.Object({
            runs: Type.Array(RunSummary),
            datasets: Type.Array(Type.String(), { description: 'Shipped datasets, by name' }),
          }),
          ...commonErrors,
        },
      },
    },
    async () => ({ runs: runs.list().map(summary), datasets: [...(await shippedDatasetFiles()).keys()] }),
  );

  app.get(
    '/v1/evals/:id',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'getEvalRun',
        tags: ['evals'],
        summary: 'An eval run: its progress, and its report once done',
        description:
          'Admin only. While running: cases done, passed and failed of the total. Once done: the report, with the ' +
          'pass rate and p50/p95 per tool, every failure with expected vs actual, A/B differences and the comparison.',
        params: RunParams,
        response: { 200: RunView, ...commonErrors },
      },
    },
    async (request) => {
      const run = runs.get(request.params.id);
      return { ...summary(run), report: run.report };
    },
  );

  app.get(
    '/v1/evals/:id/junit',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'getEvalRunJunit',
        tags: ['evals'],
        summary: "An eval run's report as JUnit XML (for CI systems)",
        description:
          'Admin only. One testsuite per variant and tool, one testcase per case; 409 while the run has no report.',
        params: RunParams,
        response: {
          200: { description: 'JUnit XML', content: { 'application/xml': { schema: { type: 'string' } } } },
          ...commonErrors,
          409: errorRef,
        },
      },
    },
    async (request, reply) => {
      const run = runs.get(request.params.id);
      if (!run.report)
        throw toolgateError('CONFLICT', `Eval run ${run.id} has no report yet (${run.status})`);
      return reply.type('application/xml').send(junitXml(run.report));
    },
  );

  app.delete(
    '/v1/evals/:id',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'deleteEvalRun',
        tags: ['evals'],
        summary: 'Cancel a running eval run (after its cases in flight), or forget a finished one',
        description:
          'Admin only. A running run stops taking cases, finishes those in flight and keeps a report of what ran ' +
          '(status cancelled); a finished run is removed with its report.',
        params: RunParams,
        response: { 200: RunSummary, ...commonErrors },
      },
    },
    async (request) => summary(await runs.remove(request.params.id)),
  );
}
