// The session page's "Changes" panel: what changed in the workspace since the session started, whatever
// made it (edit tools or commands), from GET /v1/sessions/{id}/changes — the JSON summary (path, status,
// lines added and removed) and, for a picked file or all of them, the git diff (format=diff). Each fetch
// is an operator read (a workspace_changes run, audited as the operator's, never the session's call or
// rate limit), and a diff of a big workspace costs: the panel refreshes only when the page asks,
// debounced. Diff text goes into the page as text nodes only.
import { api, apiText } from './api.js';
import { fill, h, pill, table } from './dom.js';

const MAX_DIFF_LINES = 4000;

export function changesPanel(path, { signal }) {
  const summary = h('div.table-wrap', { id: 'changes' });
  const totals = h('small', { id: 'changes-totals' });
  const diffTitle = h('h3', { id: 'changes-diff-title', hidden: true });
  const diff = h('pre.diff.changes-diff', { id: 'changes-diff', tabindex: 0, hidden: true });
  const showAll = h(
    'button.link',
    { id: 'changes-show-diff', type: 'button', onclick: () => showDiff(null) },
    'show diff',
  );
  const element = h(
    'section.card.wide',
    { 'aria-labelledby': 'changes-title' },
    h('h2', { id: 'changes-title' }, 'Files changed ', totals, ' ', showAll),
    summary,
    diffTitle,
    diff,
  );
  let files = [];
  /** The file whose diff is shown (null: all of them), or undefined when no diff is open. */
  let shown;
  let timer;
  let loading = Promise.resolve();

  async function load() {
    try {
      const report = await api(`${path}/changes`, { query: { since: 'start', format: 'json' }, signal });
      files = report.files;
      const t = report.totals;
      fill(
        totals,
        t.files ? `${t.files} ${t.files === 1 ? 'file' : 'files'}, +${t.additions} −${t.deletions}` : '',
      );
      drawSummary();
      if (shown !== undefined) await showDiff(files.some((f) => f.path === shown) ? shown : null);
    } catch (err) {
      if (!signal.aborted) fill(summary, h('p.empty', {}, err.message));
    }
  }

  function drawSummary() {
    if (files.length === 0) {
      fill(summary, h('p.empty', {}, 'No files changed since the session started.'));
      return;
    }
    const rows = files.map((f) =>
      h(
        'tr',
        {
          dataset: { path: f.path, status: f.status },
        },
        h('td', {}, pill(f.status, `change-${f.status}`), f.binary ? h('small', {}, ' binary') : ''),
        h(
          'td',
          {},
          h(
            'button.link.mono',
            {
              type: 'button',
              'aria-current': shown === f.path ? 'true' : undefined,
              onclick: () => showDiff(f.path),
            },
            f.path,
          ),
          f.oldPath ? h('small', {}, ` from ${f.oldPath}`) : '',
        ),
        h('td.num.add', {}, f.binary ? '' : `+${f.additions}`),
        h('td.num.del', {}, f.binary ? '' : `−${f.deletions}`),
      ),
    );
    fill(summary, table('table.changes', ['Status', 'Path', 'Added', 'Removed'], h('tbody', {}, rows)));
  }

  /** Shows the diff of one file (by path), or of every file (null). */
  async function showDiff(filePath) {
    shown = filePath;
    drawSummary();
    try {
      const text = await apiText(`${path}/changes`, { query: { since: 'start', format: 'diff' }, signal });
      const sections = splitSections(text);
      const picked = filePath === null ? sections : [sectionOf(filePath, sections)].filter(Boolean);
      diffTitle.hidden = false;
      diff.hidden = false;
      fill(diffTitle, filePath === null ? 'Diff of all files' : ['Diff of ', h('code', {}, filePath)]);
      fill(diff, picked.length ? renderLines(picked.flat()) : h('span.more', {}, 'No changes.'));
    } catch (err) {
      if (!signal.aborted) fill(diff, h('span.more', {}, err.message));
    }
  }

  /** A file's part of the diff: by its `diff --git` header, or by position (the summary's order). */
  function sectionOf(filePath, sections) {
    const file = files.find((f) => f.path === filePath);
    if (!file) return undefined;
    const header = `diff --git a/${file.oldPath ?? file.path} b/${file.path}`;
    return (
      sections.find((s) => s[0] === header) ??
      (sections.length === files.length ? sections[files.indexOf(file)] : undefined)
    );
  }

  return {
    element,
    /** Loads now; returns when the summary (and an open diff) is drawn. */
    refresh: () => (loading = loading.then(load)),
    /** Loads once the session has been quiet for a moment (calls often come in bursts). */
    refreshSoon() {
      clearTimeout(timer);
      timer = setTimeout(() => this.refresh(), 700);
    },
    dispose: () => clearTimeout(timer),
  };
}

/** The patch cut into one array of lines per file. */
function splitSections(text) {
  const sections = [];
  for (const line of text.replace(/\n$/, '').split('\n')) {
    if (line.startsWith('diff --git ') || sections.length === 0) sections.push([]);
    sections.at(-1).push(line);
  }
  return sections.filter((s) => s.length > 1 || s[0] !== '');
}

/** Lines as spans classed by kind; a binary patch's base85 body is summed up, not shown. */
function renderLines(lines) {
  const out = [];
  let part = 'header'; // then 'hunk' after the first @@, or 'binary'
  let count = 0;
  for (const [index, line] of lines.entries()) {
    if (line.startsWith('diff --git ')) part = 'header';
    else if (part === 'binary') continue;
    if (++count > MAX_DIFF_LINES) {
      out.push(h('span.more', {}, `… ${lines.length - index} more lines (GET the diff for all of it)`));
      break;
    }
    if (line === 'GIT binary patch') {
      part = 'binary';
      out.push(h('span.more', {}, '(binary content not shown)\n'));
      continue;
    }
    if (line.startsWith('@@')) part = 'hunk';
    out.push(h(`span.${lineKind(line, part)}`, {}, `${line}\n`));
  }
  return out;
}

function lineKind(line, part) {
  if (line.startsWith('@@')) return 'hunk';
  if (part === 'header') return line.startsWith('diff --git ') ? 'file' : 'meta';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  return 'ctx';
}
