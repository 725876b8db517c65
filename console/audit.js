// Audit page: the audit log with the API's filters (session, tool, status, since, until) and its cursor
// paging ("Load older"), and an export of the loaded rows as CSV or JSON.
import { api } from './api.js';
import { copyButton, fill, h, ms, pill, say, table } from './dom.js';

const COLUMNS = [
  'time',
  'sessionId',
  'tool',
  'category',
  'status',
  'errorCode',
  'httpStatus',
  'durationMs',
  'bytesIn',
  'bytesOut',
  'caller',
  'entryPoint',
  'inputSummary',
];

export function render(container) {
  let rows = [];
  let nextCursor = null;
  let filters = { limit: 100 };
  const body = h('tbody', { id: 'audit-rows' });
  const more = h(
    'button',
    { type: 'button', id: 'audit-more', hidden: true, onclick: () => load(true) },
    'Load older',
  );
  const count = h('span.count', { id: 'audit-count' });
  const field = (name, label, attrs = {}) => [
    h('label', { for: `audit-${name}` }, label),
    h('input', { id: `audit-${name}`, name, ...attrs }),
  ];
  const form = h(
    'form.filters',
    { id: 'audit-filters', onsubmit: (e) => (e.preventDefault(), apply()) },
    field('sessionId', 'Session', { placeholder: 'session id' }),
    field('tool', 'Tool', { placeholder: 'e.g. run_command' }),
    h('label', { for: 'audit-status' }, 'Status'),
    h(
      'select',
      { id: 'audit-status', name: 'status' },
      ['', 'success', 'error', 'refused', 'pending'].map((s) => h('option', { value: s }, s || 'any')),
    ),
    field('since', 'Since', { type: 'datetime-local', step: 1 }),
    field('until', 'Until', { type: 'datetime-local', step: 1 }),
    // The operator's own views of sessions (this console's panels) are not the sessions' calls.
    field('operatorReads', 'Operator reads', { type: 'checkbox', value: 'true' }),
    h('label', { for: 'audit-limit' }, 'Page size'),
    h(
      'select',
      { id: 'audit-limit', name: 'limit' },
      [25, 100, 500].map((n) => h('option', { value: n, selected: n === 100 }, n)),
    ),
    h('button', { type: 'submit' }, 'Filter'),
  );

  fill(
    container,
    h('h1', {}, 'Audit'),
    form,
    h(
      'div.toolbar',
      {},
      count,
      h('button', { type: 'button', id: 'export-csv', onclick: () => download('csv') }, 'Export CSV'),
      h('button', { type: 'button', id: 'export-json', onclick: () => download('json') }, 'Export JSON'),
    ),
    h(
      'div.table-wrap',
      {},
      table(
        'table.audit',
        ['Time', 'Session', 'Tool', 'Status', 'Code', 'Duration', 'Caller', 'Input'],
        body,
      ),
    ),
    more,
  );

  function apply() {
    const data = new FormData(form);
    const iso = (v) => (v ? new Date(String(v)).toISOString() : undefined);
    filters = {
      sessionId: data.get('sessionId')?.trim() || undefined,
      tool: data.get('tool')?.trim() || undefined,
      status: data.get('status') || undefined,
      since: iso(data.get('since')),
      until: iso(data.get('until')),
      operatorReads: data.get('operatorReads') ? 'true' : undefined,
      limit: Number(data.get('limit')),
    };
    load(false);
  }

  async function load(older) {
    try {
      const page = await api('/v1/audit', {
        query: { ...filters, cursor: older ? nextCursor : undefined },
      });
      rows = older ? rows.concat(page.entries) : page.entries;
      nextCursor = page.nextCursor;
      draw();
    } catch (err) {
      say(err.message, 'error');
    }
  }

  function draw() {
    fill(
      body,
      rows.length
        ? rows.map((r) =>
            h(
              'tr',
              { dataset: { tool: r.tool, status: r.status } },
              h('td', {}, new Date(r.time).toLocaleString()),
              h('td.session', {}, r.sessionId ? sessionCell(r.sessionId) : '—'),
              h('td', {}, h('code', {}, r.tool)),
              h('td', {}, pill(r.status)),
              h('td', {}, codeOf(r)),
              h('td.num', {}, ms(r.durationMs)),
              h('td', {}, r.caller),
              h('td.summary', { title: r.inputSummary }, r.inputSummary),
            ),
          )
        : h('tr', {}, h('td.empty', { colspan: 8 }, 'No audit rows match.')),
    );
    count.textContent = `${rows.length} rows${nextCursor ? ' (more available)' : ''}`;
    more.hidden = !nextCursor;
  }

  // The id is shortened to keep the table narrow; the whole id is its title and what the button copies.
  function sessionCell(id) {
    return [
      h('a', { href: `#/session/${id}`, title: id }, id.slice(0, 12)),
      ' ',
      copyButton(id, {
        what: 'Session id',
        'aria-label': `Copy session id ${id}`,
        title: 'Copy the full id',
      }),
    ];
  }

  /** A parked call's final row says who decided it and why: "APPROVAL_DENIED by admin: not today". */
  function codeOf(r) {
    if (!r.decidedBy) return r.errorCode ?? '';
    return `${r.errorCode} by ${r.decidedBy}${r.reason ? `: ${r.reason}` : ''}`;
  }

  function download(format) {
    const text =
      format === 'json'
        ? JSON.stringify(rows, null, 2)
        : [COLUMNS.join(','), ...rows.map((r) => COLUMNS.map((c) => csvCell(r[c])).join(','))].join('\r\n');
    const blob = new Blob([text], { type: format === 'json' ? 'application/json' : 'text/csv' });
    const link = h('a', { href: URL.createObjectURL(blob), download: `toolgate-audit.${format}` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  }

  load(false);
  return () => {};
}

/** RFC 4180 quoting; a leading =, +, - or @ is prefixed so a spreadsheet does not run it as a formula. */
export function csvCell(value) {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
