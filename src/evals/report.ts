// Builds the report from the case results of each variant, and compares it with a previous report:
// a case (by variant and id) that passed there and fails here is a regression, the reverse a fix.
import { percentile } from '../store/stats.js';
import type { CaseResult } from './run-case.js';
import type { EvalReport, VariantReport } from './report-schema.js';

const round = (n: number) => Math.round(n * 100) / 100;
const sortedOf = (values: number[]) => [...values].sort((a, b) => a - b);

export function variantReport(name: string, results: readonly CaseResult[]): VariantReport {
  const byTool = new Map<string, CaseResult[]>();
  for (const r of results) byTool.set(r.tool, [...(byTool.get(r.tool) ?? []), r]);
  const passed = results.filter((r) => r.passed).length;
  const overhead = sortedOf(results.map((r) => r.overheadMs));
  return {
    name,
    total: results.length,
    passed,
    passRate: results.length ? round(passed / results.length) : 1,
    overheadMs: {
      mean: round(overhead.reduce((a, b) => a + b, 0) / Math.max(1, overhead.length)),
      p50: round(percentile(overhead, 50)),
      p95: round(percentile(overhead, 95)),
      max: round(overhead[overhead.length - 1] ?? 0),
    },
    tools: [...byTool.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([tool, rows]) => {
        const ok = rows.filter((r) => r.passed).length;
        const times = sortedOf(rows.map((r) => r.callMs));
        return {
          tool,
          total: rows.length,
          passed: ok,
          passRate: round(ok / rows.length),
          p50Ms: round(percentile(times, 50)),
          p95Ms: round(percentile(times, 95)),
        };
      }),
    cases: results.map(({ id, tool, passed, callMs, caseMs, overheadMs }) => ({
      id,
      tool,
      passed,
      callMs,
      caseMs,
      overheadMs,
    })),
    failures: results.filter((r) => !r.passed).map(({ id, tool, mismatches }) => ({ id, tool, mismatches })),
  };
}

/** Cases whose outcome is not the same in every variant. */
export function differences(variants: readonly VariantReport[]): EvalReport['differences'] {
  if (variants.length < 2) return [];
  const rows = new Map<string, { tool: string; passed: Record<string, boolean> }>();
  for (const variant of variants) {
    for (const c of variant.cases) {
      const row = rows.get(c.id) ?? { tool: c.tool, passed: {} };
      row.passed[variant.name] = c.passed;
      rows.set(c.id, row);
    }
  }
  return [...rows.entries()]
    .filter(([, row]) => new Set(Object.values(row.passed)).size > 1)
    .map(([id, row]) => ({ id, ...row }));
}

export function compareReports(
  current: EvalReport,
  previous: EvalReport,
): NonNullable<EvalReport['comparison']> {
  const before = new Map<string, boolean>();
  for (const v of previous.variants) for (const c of v.cases) before.set(`${v.name}\n${c.id}`, c.passed);
  const seen = new Set<string>();
  const regressions: { variant: string; id: string; tool: string }[] = [];
  const fixes: typeof regressions = [];
  let added = 0;
  for (const v of current.variants) {
    for (const c of v.cases) {
      const key = `${v.name}\n${c.id}`;
      seen.add(key);
      const was = before.get(key);
      if (was === undefined) added++;
      else if (was && !c.passed) regressions.push({ variant: v.name, id: c.id, tool: c.tool });
      else if (!was && c.passed) fixes.push({ variant: v.name, id: c.id, tool: c.tool });
    }
  }
  const removed = [...before.keys()].filter((key) => !seen.has(key)).length;
  return { previous: previous.startedAt, regressions, fixes, added, removed };
}
