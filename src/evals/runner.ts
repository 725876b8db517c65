// Runs datasets against one or more targets (a variant and how to reach it): every case of every
// dataset, optionally only those of some tools, `concurrency` at a time, each in its own session; then
// the report. Stops taking new cases when the signal aborts (the cases already running finish).
import type { Dataset } from './dataset.js';
import { compareReports, differences, variantReport } from './report.js';
import type { EvalReport } from './report-schema.js';
import type { EvalProgress } from './run-schema.js';
import { runCase, toolOf, type CaseResult } from './run-case.js';
import type { EvalTransport } from './transport.js';
import type { Variant } from './variant.js';

export interface EvalTarget {
  variant: Variant;
  transport: EvalTransport;
  /** The admin key of the service the transport reaches: sessions are made and removed with it. */
  adminToken: string;
}

export interface RunOptions {
  concurrency?: number;
  /** Only the cases of these tools. */
  tools?: readonly string[];
  signal?: AbortSignal;
  onProgress?(progress: EvalProgress, last: CaseResult): void;
  previous?: EvalReport;
}

export const DEFAULT_CONCURRENCY = 4;

export function selectCases(datasets: readonly Dataset[], tools?: readonly string[]) {
  const wanted = tools && tools.length > 0 ? new Set(tools) : undefined;
  return datasets.flatMap((d) =>
    d.cases
      .filter((c) => !wanted || wanted.has(toolOf(c)))
      .map((evalCase) => ({ dataset: d.name, evalCase })),
  );
}

export async function runEvals(
  datasets: readonly Dataset[],
  targets: readonly EvalTarget[],
  options: RunOptions = {},
): Promise<EvalReport> {
  const started = new Date();
  const concurrency = Math.max(1, Math.min(64, options.concurrency ?? DEFAULT_CONCURRENCY));
  const cases = selectCases(datasets, options.tools);
  const work = targets.flatMap((target, t) => cases.map((c, i) => ({ target: t, index: i, ...c })));
  const results: CaseResult[][] = targets.map(() => new Array<CaseResult>(cases.length));
  const progress: EvalProgress = { total: work.length, done: 0, passed: 0, failed: 0 };
  let next = 0;
  const worker = async () => {
    while (next < work.length && !options.signal?.aborted) {
      const item = work[next++];
      const { variant, transport, adminToken } = targets[item.target];
      const result = await runCase(transport, adminToken, item.dataset, item.evalCase, variant);
      results[item.target][item.index] = result;
      progress.done++;
      if (result.passed) progress.passed++;
      else progress.failed++;
      options.onProgress?.({ ...progress }, result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, work.length)) }, worker));
  const variants = targets.map((target, t) =>
    variantReport(
      target.variant.name,
      results[t].filter((r) => r !== undefined),
    ),
  );
  const finished = new Date();
  const report: EvalReport = {
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationMs: finished.getTime() - started.getTime(),
    datasets: datasets.map((d) => d.name),
    concurrency,
    variants,
    differences: differences(variants),
  };
  if (options.previous) report.comparison = compareReports(report, options.previous);
  return report;
}
