// The eval CLI's terminal output: per variant a table per tool (pass rate, p50/p95), the runner's
// overhead, each failure with expected vs actual, and the A/B differences and regressions/fixes.
import type { EvalReport } from '../src/evals/report-schema.js';

const pct = (rate: number) => `${(rate * 100).toFixed(1)}%`;
const show = (value: unknown) =>
  typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? 'undefined');

export function printReport(report: EvalReport): void {
  for (const variant of report.variants) {
    console.log(`\n${variant.name}: ${variant.passed}/${variant.total} passed (${pct(variant.passRate)})`);
    console.log(
      `  ${'tool'.padEnd(28)} ${'passed'.padStart(9)} ${'rate'.padStart(7)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)}`,
    );
    for (const t of variant.tools) {
      console.log(
        `  ${t.tool.padEnd(28)} ${`${t.passed}/${t.total}`.padStart(9)} ${pct(t.passRate).padStart(7)} ${t.p50Ms.toFixed(1).padStart(8)} ${t.p95Ms.toFixed(1).padStart(8)}`,
      );
    }
    const o = variant.overheadMs;
    console.log(
      `  runner overhead per case: mean ${o.mean} ms, p50 ${o.p50} ms, p95 ${o.p95} ms, max ${o.max} ms`,
    );
    for (const failure of variant.failures) {
      console.log(`  ✗ ${failure.id}`);
      for (const m of failure.mismatches) {
        console.log(
          `      ${m.what}\n        expected: ${show(m.expected)}\n        actual:   ${show(m.actual)}`,
        );
      }
    }
  }
  for (const d of report.differences) {
    console.log(
      `  ≠ ${d.id}: ${Object.entries(d.passed)
        .map(([v, ok]) => `${v} ${ok ? 'pass' : 'FAIL'}`)
        .join(', ')}`,
    );
  }
  if (report.comparison) {
    const c = report.comparison;
    console.log(
      `\nagainst ${c.previous}: ${c.regressions.length} regressions, ${c.fixes.length} fixes, ${c.added} new, ${c.removed} gone`,
    );
    for (const r of c.regressions) console.log(`  regressed: [${r.variant}] ${r.id}`);
    for (const f of c.fixes) console.log(`  fixed:     [${f.variant}] ${f.id}`);
  }
  console.log(`\n${report.durationMs} ms, concurrency ${report.concurrency}`);
}
