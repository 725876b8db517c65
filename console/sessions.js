// Sessions page: the live list (profile, age, last activity, calls, errors, runtime state), filter and
// search, create (profile, TTL; the token is shown once with a copy button) and delete.
import { api } from './api.js';
import { age, ago, copyButton, fill, h, pill, say, table } from './dom.js';

const PROFILES = ['read-only', 'read-write', 'execute', 'full'];

export function render(container) {
  const state = { sessions: [], stats: {}, query: '', profile: '', runtime: '' };
  const rowsBody = h('tbody');
  const created = h('div.created', { 'aria-live': 'polite' });
  const search = h('input', {
    type: 'search',
    id: 'session-search',
    placeholder: 'id, profile or metadata',
    oninput: (e) => {
      state.query = e.target.value.trim().toLowerCase();
      draw();
    },
  });
  const profileFilter = h(
    'select',
    { id: 'session-profile-filter', onchange: (e) => ((state.profile = e.target.value), draw()) },
    h('option', { value: '' }, 'any profile'),
    PROFILES.map((p) => h('option', { value: p }, p)),
  );
  const runtimeFilter = h(
    'select',
    { id: 'session-runtime-filter', onchange: (e) => ((state.runtime = e.target.value), draw()) },
    h('option', { value: '' }, 'any runtime'),
    ['running', 'starting', 'stopped'].map((s) => h('option', { value: s }, s)),
  );

  const form = h(
    'form.create',
    { id: 'create-session', onsubmit: (e) => create(e) },
    h('label', { for: 'new-profile' }, 'Profile'),
    h(
      'select',
      { id: 'new-profile', name: 'profile' },
      PROFILES.map((p) => h('option', { value: p, selected: p === 'execute' }, p)),
    ),
    h('label', { for: 'new-ttl' }, 'TTL (seconds)'),
    h('input', {
      id: 'new-ttl',
      name: 'ttl',
      type: 'number',
      min: 1,
      placeholder: 'default',
      inputmode: 'numeric',
    }),
    h('label', { for: 'new-approval' }, 'Needs approval'),
    h('input', { id: 'new-approval', name: 'approval', placeholder: 'e.g. run_command, edit' }),
    h('button', { type: 'submit' }, 'Create session'),
  );

  const capacityLine = h('p.capacity', { id: 'capacity', 'aria-live': 'polite' });
  fill(
    container,
    h('h1', {}, 'Sessions'),
    capacityLine,
    h('details.card', {}, h('summary', { id: 'create-session-toggle' }, 'New session'), form, created),
    h(
      'div.filters',
      {},
      h('label', { for: 'session-search' }, 'Search'),
      search,
      profileFilter,
      runtimeFilter,
    ),
    h(
      'div.table-wrap',
      {},
      table(
        'table.sessions',
        ['Session', 'Profile', 'Age', 'Last activity', 'Calls', 'Errors', 'Runtime', ''],
        rowsBody,
      ),
    ),
  );

  async function create(event) {
    event.preventDefault();
    const data = new FormData(form);
    const body = { profile: data.get('profile') };
    const ttl = Number(data.get('ttl'));
    if (ttl > 0) body.ttlSeconds = ttl;
    const approval = String(data.get('approval') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (approval.length) body.approval = approval;
    try {
      const session = await api('/v1/sessions', { method: 'POST', body });
      const token = h('code.token', { id: 'new-token' }, session.token);
      fill(
        created,
        h(
          'p',
          {},
          'Session ',
          h('a', { href: `#/session/${session.id}`, id: 'new-session-id' }, session.id),
          ' created. Its token is shown only now:',
        ),
        token,
        copyButton(session.token, { label: 'Copy token', what: 'Token' }),
      );
      load();
    } catch (err) {
      fill(created, h('p.error', { role: 'alert' }, err.message));
    }
  }

  async function remove(id) {
    if (!confirm(`Delete session ${id} and its workspace?`)) return;
    try {
      await api(`/v1/sessions/${encodeURIComponent(id)}`, { method: 'DELETE' });
      say(`Session ${id} deleted`);
      load();
    } catch (err) {
      say(err.message, 'error');
    }
  }

  function matches(s) {
    if (state.profile && s.profile !== state.profile) return false;
    if (state.runtime && s.runtimeState !== state.runtime) return false;
    if (!state.query) return true;
    return [s.id, s.profile, JSON.stringify(s.metadata)].some((t) => t.toLowerCase().includes(state.query));
  }

  function draw() {
    const rows = state.sessions.filter(matches).map((s) => {
      const st = state.stats[s.id];
      return h(
        'tr',
        { dataset: { session: s.id } },
        h('td', {}, h('a', { href: `#/session/${s.id}` }, s.id)),
        h('td', {}, s.profile),
        h('td', {}, age(s.createdAt)),
        h('td', {}, ago(st?.lastCallAt)),
        h('td.num', {}, st?.total ?? 0),
        h('td.num', {}, st ? st.error + st.refused : 0),
        h('td', {}, pill(s.runtimeState)),
        h(
          'td',
          {},
          h(
            'button.danger',
            { type: 'button', onclick: () => remove(s.id), 'aria-label': `Delete session ${s.id}` },
            'Delete',
          ),
        ),
      );
    });
    fill(rowsBody, rows.length ? rows : h('tr', {}, h('td.empty', { colspan: 8 }, 'No sessions match.')));
  }

  /** "Capacity: 12 / 1344 sessions, 3 / 165 runtimes", and which limit is full when one is. */
  function drawCapacity(capacity) {
    const { sessions, runtimes } = capacity.limits;
    fill(
      capacityLine,
      `Capacity: ${sessions.used} / ${sessions.limit} sessions, ${runtimes.used} / ${runtimes.limit} runtimes`,
      capacity.full
        ? h('strong.error', {}, ` — full (${capacity.fullLimits.join(', ')}): new sessions are refused`)
        : '',
    );
  }

  async function load() {
    try {
      drawCapacity(await api('/v1/capacity'));
      const list = await api('/v1/sessions', { query: { limit: 200 } });
      // Counted from the oldest listed session's birth: no older audit row can belong to one of them.
      const oldest = list.sessions.reduce((min, x) => Math.min(min, Date.parse(x.createdAt)), Date.now());
      const stats = await api('/v1/stats', { query: { since: new Date(oldest).toISOString() } });
      state.sessions = list.sessions;
      state.stats = stats.bySession;
      draw();
    } catch (err) {
      say(err.message, 'error');
    }
  }

  load();
  const timer = setInterval(load, 2000);
  return () => clearInterval(timer);
}
