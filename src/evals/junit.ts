// The report as JUnit XML, which CI systems read: one <testsuite> per variant and tool, one <testcase>
// per case (its call time), a <failure> listing each expectation that did not hold.
import type { EvalReport } from './report-schema.js';

// Characters XML 1.0 does not allow at all (control characters but tab, LF, CR) are dropped; the rest escaped.
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;
const escapeXml = (text: string) =>
  text.replace(NOT_XML, '').replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

export function junitXml(report: EvalReport): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const total = report.variants.reduce((n, v) => n + v.total, 0);
  const failed = report.variants.reduce((n, v) => n + v.total - v.passed, 0);
  lines.push(
    `<testsuites name="toolgate evals" tests="${total}" failures="${failed}" time="${report.durationMs / 1000}">`,
  );
  for (const variant of report.variants) {
    const failures = new Map(variant.failures.map((f) => [f.id, f.mismatches]));
    for (const tool of variant.tools) {
      const rows = variant.cases.filter((c) => c.tool === tool.tool);
      const suite = report.variants.length > 1 ? `${variant.name}.${tool.tool}` : tool.tool;
      lines.push(
        `  <testsuite name="${escapeXml(suite)}" tests="${tool.total}" failures="${tool.total - tool.passed}">`,
      );
      for (const row of rows) {
        const attrs = `classname="${escapeXml(suite)}" name="${escapeXml(row.id)}" time="${(row.callMs / 1000).toFixed(4)}"`;
        const mismatches = failures.get(row.id);
        if (!mismatches) {
          lines.push(`    <testcase ${attrs}/>`);
          continue;
        }
        const body = mismatches
          .map((m) => `${m.what}\n  expected: ${show(m.expected)}\n  actual:   ${show(m.actual)}`)
          .join('\n');
        lines.push(`    <testcase ${attrs}>`);
        lines.push(`      <failure message="${escapeXml(mismatches[0].what)}">${escapeXml(body)}</failure>`);
        lines.push('    </testcase>');
      }
      lines.push('  </testsuite>');
    }
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}
