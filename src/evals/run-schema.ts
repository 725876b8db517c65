// The shape of a background eval run (progress while it runs, the report once done): what
// GET /v1/evals/{id} answers and what is kept under <dataDir>/evals/.
import { Type, type Static } from 'typebox';
import { EvalReportSchema } from './report-schema.js';

export const EvalProgressSchema = Type.Object({
  total: Type.Integer(),
  done: Type.Integer(),
  passed: Type.Integer(),
  failed: Type.Integer(),
});

export const EvalRunSchema = Type.Object({
  id: Type.String(),
  status: Type.Enum(['running', 'completed', 'failed', 'cancelled']),
  createdAt: Type.String({ format: 'date-time' }),
  finishedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  datasets: Type.Array(Type.String()),
  tools: Type.Array(Type.String(), { description: 'Only the cases of these tools (empty: all)' }),
  variants: Type.Array(Type.String()),
  concurrency: Type.Integer(),
  progress: EvalProgressSchema,
  error: Type.Union([Type.String(), Type.Null()]),
  report: Type.Union([EvalReportSchema, Type.Null()]),
});

export type EvalProgress = Static<typeof EvalProgressSchema>;
export type EvalRun = Static<typeof EvalRunSchema>;
