// Stats page: charts drawn with uPlot (served by toolgate from its node_modules): calls per minute by
// status, rate-limit refusals per minute, p50/p95 duration by tool, and errors by code, over a picked
// time range; totals above them. Data: GET /v1/stats/timeline and GET /v1/stats. uPlot (146 KB) and its
// stylesheet load the first time this page opens, so the sign-in page and the other pages never fetch them.
import { api } from './api.js';
import { fill, h, ms, say } from './dom.js';

const RANGES = [
  ['15 min', 15 * 60],
  ['1 hour', 3600],
  ['6 hours', 6 * 3600],
  ['24 hours', 24 * 3600],
];
let uPlot;
let chartLibrary;

/** Loads uPlot and its stylesheet once; resolves when both are in. */
function loadChartLibrary() {
  chartLibrary ??= Promise.all([
    import('./uPlot.esm.js').then((module) => (uPlot = module.default)),
    new Promise((resolve, reject) => {
      const link = h('link', { rel: 'stylesheet', href: '/console/assets/uPlot.min.css' });
      link.addEventListener('load', resolve);
      link.addEventListener('error', () => reject(new Error('The chart stylesheet did not load.')));
      // Before console.css, as if the page had linked it, so the console's own rules still win.
      document.head.insertBefore(link, document.querySelector('link[href$="/console.css"]'));
    }),
  ]).catch((err) => {
    chartLibrary = undefined; // a later visit tries again
    throw err;
  });
  return chartLibrary;
}

const COLORS = {
  success: '#2e7d32',
  error: '#c62828',
  refused: '#ef6c00',
  pending: '#6a1b9a',
  p50: '#1565c0',
  p95: '#90caf9',
};

export function render(container) {
  let range = 3600;
  let stopped = false;
  const charts = [];
  const totals = h('div.totals', { id: 'stats-totals' });
  const panel = (id, title) =>
    h(
      'section.card.chart',
      { 'aria-labelledby': `${id}-title` },
      h('h2', { id: `${id}-title` }, title),
      h('div', { id }),
    );
  const picker = h(
    'div.range',
    { role: 'group', 'aria-label': 'Time range' },
    RANGES.map(([label, seconds]) =>
      h(
        'button',
        {
          type: 'button',
          dataset: { range: seconds },
          'aria-pressed': String(seconds === range),
          onclick: () => pick(seconds),
        },
        label,
      ),
    ),
  );
  fill(
    container,
    h('h1', {}, 'Stats'),
    picker,
    totals,
    h(
      'div.grid',
      {},
      panel('chart-calls', 'Calls per minute by status'),
      panel('chart-rate-limited', 'Rate-limit refusals per minute'),
      panel('chart-latency', 'Duration by tool (p50 / p95)'),
      panel('chart-errors', 'Errors by code'),
    ),
  );

  function pick(seconds) {
    range = seconds;
    for (const b of picker.querySelectorAll('button'))
      b.setAttribute('aria-pressed', String(Number(b.dataset.range) === range));
    load();
  }

  async function load() {
    const since = new Date(Date.now() - range * 1000).toISOString();
    try {
      const [timeline, stats] = await Promise.all([
        api('/v1/stats/timeline', { query: { since, bucketSeconds: 60 } }),
        api('/v1/stats', { query: { since } }),
        loadChartLibrary(),
      ]);
      // An answer that arrives after the operator left the page has nothing to draw into.
      if (!stopped) draw(timeline, stats);
    } catch (err) {
      if (!stopped) say(err.message, 'error');
    }
  }

  function draw(timeline, stats) {
    for (const chart of charts.splice(0)) chart.destroy();
    const t = stats.totals;
    fill(
      totals,
      [
        ['Calls', t.total],
        ['Succeeded', t.success],
        ['Failed', t.error],
        ['Refused', t.refused],
        ['Parked', t.pending],
        ['p50', ms(t.p50Ms)],
        ['p95', ms(t.p95Ms)],
      ].map(([label, value]) => h('div.total', {}, h('span', {}, label), h('strong', {}, value))),
    );
    const x = timeline.buckets.map((b) => Date.parse(b.start) / 1000);
    const column = (key) => timeline.buckets.map((b) => b[key]);
    const statuses = ['success', 'error', 'refused', 'pending'];
    charts.push(
      plot(
        'chart-calls',
        [x, ...statuses.map(column)],
        statuses.map((s) => line(s, COLORS[s])),
      ),
      plot('chart-rate-limited', [x, column('rateLimited')], [line('rate limited', COLORS.refused)]),
    );
    const tools = Object.keys(stats.byTool);
    charts.push(
      categories(
        'chart-latency',
        tools,
        [tools.map((k) => stats.byTool[k].p50Ms), tools.map((k) => stats.byTool[k].p95Ms)],
        [bars('p50 ms', COLORS.p50, -1), bars('p95 ms', COLORS.p95, 1)],
      ),
    );
    const codes = Object.keys(stats.byErrorCode);
    charts.push(
      categories(
        'chart-errors',
        codes,
        [codes.map((c) => stats.byErrorCode[c])],
        [bars('calls', COLORS.error, 0)],
      ),
    );
  }

  const width = (el) => Math.max(260, el.clientWidth || el.parentElement.clientWidth - 24);

  function plot(id, data, series) {
    const el = document.getElementById(id);
    el.replaceChildren();
    return new uPlot(
      {
        width: width(el),
        height: 220,
        series: [{}, ...series],
        axes: [{}, { size: 50 }],
        scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      },
      data,
      el,
    );
  }

  function categories(id, labels, values, series) {
    const el = document.getElementById(id);
    el.replaceChildren();
    if (labels.length === 0) {
      el.append(h('p.empty', {}, 'Nothing in this range.'));
      return { destroy() {} };
    }
    return new uPlot(
      {
        width: width(el),
        height: 240,
        scales: {
          x: { time: false, range: [-0.5, labels.length - 0.5] },
          y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
        },
        axes: [
          {
            values: (_u, ticks) => ticks.map((i) => labels[i] ?? ''),
            splits: () => labels.map((_l, i) => i),
            // Long names slant so neighbours do not run into each other.
            rotate: labels.length > 4 ? -30 : 0,
            size: labels.length > 4 ? 90 : 40,
          },
          { size: 50 },
        ],
        series: [{}, ...series],
      },
      [labels.map((_l, i) => i), ...values],
      el,
    );
  }

  load();
  const timer = setInterval(load, 10_000);
  const onResize = () => load();
  window.addEventListener('resize', onResize);
  return () => {
    stopped = true;
    clearInterval(timer);
    window.removeEventListener('resize', onResize);
    for (const chart of charts) chart.destroy();
  };
}

const line = (label, stroke) => ({ label, stroke, width: 2, fill: `${stroke}22`, points: { show: false } });

const bars = (label, color, align) => ({
  label,
  stroke: color,
  fill: color,
  paths: uPlot.paths.bars({ size: [align === 0 ? 0.6 : 0.35, 60], align }),
  points: { show: false },
});
