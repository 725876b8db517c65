// An eval report on the console: per variant a table per tool (pass rate, p50/p95), the runner's
// overhead and the failures (expected vs actual as a diff); the cases that differ between variants (A/B);
// the regressions and fixes against an earlier run.
import { h, ms, pill, table } from './dom.js';
import { mismatchView } from './eval-diff.js';

export const pct = (rate) => (rate === null || rate === undefined ? '—' : `${(rate * 100).toFixed(1)}%`);

export function reportView(report) {
  return [
    report.variants.map((variant) =>
      h(
        'section.card.eval-variant',
        { dataset: { variant: variant.name } },
        h('h2', {}, `${variant.name}: ${variant.passed}/${variant.total} passed (${pct(variant.passRate)})`),
        h(
          'div.table-wrap',
          {},
          table(
            'table.eval-tools',
            ['Tool', 'Passed', 'Pass rate', 'p50', 'p95'],
            h(
              'tbody',
              {},
              variant.tools.map((t) =>
                h(
                  'tr',
                  { dataset: { tool: t.tool } },
                  h('td', {}, h('code', {}, t.tool)),
                  h('td.num', {}, `${t.passed}/${t.total}`),
                  h('td.num', {}, pct(t.passRate)),
                  h('td.num', {}, ms(t.p50Ms)),
                  h('td.num', {}, ms(t.p95Ms)),
                ),
              ),
            ),
          ),
        ),
        h(
          'p.hint',
          {},
          `Runner overhead per case: p50 ${ms(variant.overheadMs.p50)}, p95 ${ms(variant.overheadMs.p95)}`,
        ),
        variant.failures.length ? h('h3', {}, 'Failures') : '',
        variant.failures.map((failure) =>
          h(
            'details.eval-failure',
            { dataset: { case: failure.id } },
            h('summary', {}, h('code', {}, failure.tool), ` ${failure.id}`),
            failure.mismatches.map(mismatchView),
          ),
        ),
      ),
    ),
    report.differences.length
      ? h(
          'section.card',
          {},
          h('h2', {}, 'Differences between variants'),
          table(
            'table.eval-differences',
            ['Case', ...report.variants.map((v) => v.name)],
            h(
              'tbody',
              {},
              report.differences.map((d) =>
                h(
                  'tr',
                  {},
                  h('td', {}, d.id),
                  report.variants.map((v) =>
                    h(
                      'td',
                      {},
                      pill(d.passed[v.name] ? 'success' : 'error', d.passed[v.name] ? 'success' : 'error'),
                    ),
                  ),
                ),
              ),
            ),
          ),
        )
      : '',
    report.comparison
      ? h(
          'section.card.eval-comparison',
          {},
          h('h2', {}, `Against the run of ${new Date(report.comparison.previous).toLocaleString()}`),
          h(
            'p',
            {},
            `${report.comparison.regressions.length} regressions, ${report.comparison.fixes.length} fixes`,
          ),
          h(
            'ul',
            {},
            report.comparison.regressions.map((r) =>
              h('li', {}, pill('regressed', 'error'), ` [${r.variant}] ${r.id}`),
            ),
          ),
          h(
            'ul',
            {},
            report.comparison.fixes.map((r) =>
              h('li', {}, pill('fixed', 'success'), ` [${r.variant}] ${r.id}`),
            ),
          ),
        )
      : '',
  ];
}
