// Evals page: start a run of the shipped datasets (optionally only some tools), the list of runs with
// their progress and pass rate, and one run (#/evals/<id>): a progress bar while it runs, then per
// variant a table per tool (pass rate, p50/p95), the failures with expected vs actual as a diff, the
// cases that differ between variants (A/B) and the regressions and fixes against an earlier run.
import { api } from './api.js';
import { ago, fill, h, pill, say, table } from './dom.js';
import { pct, reportView } from './eval-report.js';

const POLL_MS = 1000;
const progressBar = (p) =>
  h('progress', { max: Math.max(1, p.total), value: p.done, 'aria-label': `${p.done} of ${p.total} cases` });

export function render(container, params) {
  return params[0] ? renderRun(container, params[0]) : renderList(container);
}

function renderList(container) {
  const datasets = h('fieldset.datasets', { id: 'eval-datasets' }, h('legend', {}, 'Datasets'));
  const tools = h('input', { id: 'eval-tools', name: 'tools', placeholder: 'all, or e.g. edit_file, grep' });
  const concurrency = h('input', { id: 'eval-concurrency', type: 'number', min: 1, max: 16, value: 4 });
  const runs = h('tbody', { id: 'eval-runs' });
  const form = h(
    'form.filters',
    { id: 'eval-start', onsubmit: (e) => (e.preventDefault(), start()) },
    datasets,
    h('label', { for: 'eval-tools' }, 'Tools'),
    tools,
    h('label', { for: 'eval-concurrency' }, 'Concurrency'),
    concurrency,
    h('button', { type: 'submit' }, 'Run'),
  );
  fill(
    container,
    h('h1', {}, 'Evals'),
    h('p.hint', {}, 'Datasets of tool calls run against this service, each case in a fresh session.'),
    form,
    h('h2', {}, 'Runs'),
    h('div.table-wrap', {}, table('table', ['Started', 'Status', 'Datasets', 'Progress', 'Pass rate'], runs)),
  );

  async function start() {
    const names = [...datasets.querySelectorAll('input:checked')].map((input) => input.value);
    if (names.length === 0) return say('Pick at least one dataset', 'error');
    const toolList = tools.value
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    try {
      const run = await api('/v1/evals', {
        method: 'POST',
        body: {
          datasets: names,
          concurrency: Number(concurrency.value),
          ...(toolList.length ? { tools: toolList } : {}),
        },
      });
      say(`Eval run ${run.id} started`);
      location.hash = `#/evals/${encodeURIComponent(run.id)}`;
    } catch (err) {
      say(err.message, 'error');
    }
  }

  let first = true;
  async function load() {
    try {
      const list = await api('/v1/evals');
      if (first) {
        first = false;
        datasets.append(
          ...list.datasets.map((name) =>
            h('label.check', {}, h('input', { type: 'checkbox', name: 'dataset', value: name }), ` ${name}`),
          ),
        );
      }
      fill(
        runs,
        list.runs.length === 0 ? h('tr', {}, h('td.empty', { colspan: 5 }, 'No runs yet')) : '',
        list.runs.map((run) =>
          h(
            'tr',
            { dataset: { run: run.id } },
            h('td', {}, h('a', { href: `#/evals/${encodeURIComponent(run.id)}` }, ago(run.createdAt))),
            h('td', {}, pill(run.status)),
            h('td', {}, run.datasets.join(', ')),
            h('td', {}, progressBar(run.progress), ` ${run.progress.done}/${run.progress.total}`),
            h('td.num', {}, pct(run.passRate)),
          ),
        ),
      );
    } catch (err) {
      say(err.message, 'error');
    }
  }
  load();
  const timer = setInterval(load, POLL_MS * 2);
  return () => clearInterval(timer);
}

function renderRun(container, id) {
  const head = h('div', { id: 'eval-run-head' });
  const body = h('div', { id: 'eval-run-body' });
  fill(
    container,
    h('p', {}, h('a', { href: '#/evals' }, '← Evals')),
    h('h1', {}, 'Eval run ', h('code', {}, id)),
    head,
    body,
  );
  let timer;
  async function load() {
    try {
      const run = await api(`/v1/evals/${encodeURIComponent(id)}`);
      fill(
        head,
        h(
          'p',
          {},
          pill(run.status),
          ` ${run.datasets.join(', ')} · ${run.variants.join(' vs ')} · started ${ago(run.createdAt)} · `,
          progressBar(run.progress),
          ` ${run.progress.done}/${run.progress.total} cases, ${run.progress.failed} failed`,
        ),
        run.error ? h('p.error', {}, run.error) : '',
      );
      if (run.report) fill(body, reportView(run.report));
      if (run.status !== 'running') clearInterval(timer);
    } catch (err) {
      clearInterval(timer);
      say(err.message, 'error');
    }
  }
  load();
  timer = setInterval(load, POLL_MS);
  return () => clearInterval(timer);
}
