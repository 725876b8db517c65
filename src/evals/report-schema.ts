// The shape of an eval report (JSON, the JUnit file and the console are made from it): per variant the
// pass rate overall and per tool, p50/p95 call time per tool, the runner's overhead, every case and
// every failure with expected vs actual; across variants the cases whose outcome differs (A/B); against
// a previous report the regressions and fixes.
import { Type, type Static } from 'typebox';

const Rate = Type.Number({ minimum: 0, maximum: 1 });

const ToolSummary = Type.Object({
  tool: Type.String(),
  total: Type.Integer(),
  passed: Type.Integer(),
  passRate: Rate,
  p50Ms: Type.Number({ description: 'Median time of the case calls of this tool' }),
  p95Ms: Type.Number(),
});

const MismatchSchema = Type.Object({
  what: Type.String(),
  expected: Type.Unknown(),
  actual: Type.Unknown(),
});

const CaseRow = Type.Object({
  id: Type.String({ description: '<dataset>/<case name>' }),
  tool: Type.String(),
  passed: Type.Boolean(),
  callMs: Type.Number(),
  caseMs: Type.Number(),
  overheadMs: Type.Number({ description: 'Case wall time less the requests it made' }),
});

export const VariantReportSchema = Type.Object({
  name: Type.String(),
  total: Type.Integer(),
  passed: Type.Integer(),
  passRate: Rate,
  overheadMs: Type.Object({
    mean: Type.Number(),
    p50: Type.Number(),
    p95: Type.Number(),
    max: Type.Number(),
  }),
  tools: Type.Array(ToolSummary),
  cases: Type.Array(CaseRow),
  failures: Type.Array(
    Type.Object({ id: Type.String(), tool: Type.String(), mismatches: Type.Array(MismatchSchema) }),
  ),
});

const CaseRef = Type.Object({ variant: Type.String(), id: Type.String(), tool: Type.String() });

export const EvalReportSchema = Type.Object({
  startedAt: Type.String({ format: 'date-time' }),
  finishedAt: Type.String({ format: 'date-time' }),
  durationMs: Type.Number(),
  datasets: Type.Array(Type.String()),
  concurrency: Type.Integer(),
  variants: Type.Array(VariantReportSchema),
  differences: Type.Array(
    Type.Object({
      id: Type.String(),
      tool: Type.String(),
      passed: Type.Record(Type.String(), Type.Boolean(), { description: 'Variant name → passed' }),
    }),
    { description: 'Cases whose outcome differs between the variants (A/B)' },
  ),
  comparison: Type.Optional(
    Type.Object({
      previous: Type.String({ description: 'startedAt of the report compared against' }),
      regressions: Type.Array(CaseRef, { description: 'Passed before, fail now' }),
      fixes: Type.Array(CaseRef, { description: 'Failed before, pass now' }),
      added: Type.Integer({ description: 'Cases the previous report did not have' }),
      removed: Type.Integer({ description: 'Cases of the previous report not run now' }),
    }),
  ),
});

export type EvalReport = Static<typeof EvalReportSchema>;
export type VariantReport = Static<typeof VariantReportSchema>;
