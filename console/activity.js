// A session's activity, live: its settings, disk and runtime; the timeline of calls (from the audit log,
// then the event stream /v1/sessions/{id}/events); a running command's output as it streams; the todo
// list (GET /v1/sessions/{id}/todos, no tool call); its shells, terminals and kernels (interactive.js:
// polled, no tool call either); the exposed ports with their links and an inline view (ports.js; GET
// …/ports, not a tool call); the files changed with their diff (changes.js) and the checkpoints with
// restore (checkpoints.js). Those two are tools underneath (workspace_changes, checkpoint_list): each
// load is an audited read in the session's rate limit, so they reload only after a call that may have
// changed the workspace ends, debounced — never after the console's own reads.
import { api, streamEvents } from './api.js';
import { changesPanel } from './changes.js';
import { checkpointsPanel } from './checkpoints.js';
import { INTERACTIVE_TOOL, interactivePanel } from './interactive.js';
import { portsPanel } from './ports.js';
import { ago, bytes, fill, h, ms, pill, say, time, table } from './dom.js';

/** Names of the tools that neither write files nor run commands (from GET /v1/tools, no tool call). */
let readOnlyTools;
const loadReadOnlyTools = async () => {
  const { tools } = await api('/v1/tools');
  readOnlyTools = new Set(
    tools.filter((t) => !t.capabilities.writesFiles && !t.capabilities.executesCommands).map((t) => t.name),
  );
};
/** Tools whose end changes the checkpoint list. */
const CHECKPOINT_TOOLS = new Set(['checkpoint_create', 'checkpoint_restore']);
/** Tools whose end changes what the ports panel shows (a port exposed; what listens, after a command). */
const PORT_TOOLS = new Set(['expose_port', 'list_ports', 'run_command']);
const MAX_ROWS = 200;
const MAX_OUTPUT = 200_000;

export function render(container, [id]) {
  const controller = new AbortController();
  const calls = new Map();
  const path = `/v1/sessions/${encodeURIComponent(id)}`;
  const detail = h('div.detail');
  const timeline = h('tbody', { id: 'timeline' });
  const output = h(
    'pre.output',
    { id: 'live-output', tabindex: 0, 'aria-label': 'Command output' },
    h('span.placeholder', {}, 'No output yet: a command’s stdout and stderr stream here while it runs.'),
  );
  const outputTitle = h('h2', {}, 'Output');
  const todos = h('ul.todos', { id: 'todos' });
  const changes = changesPanel(path, { signal: controller.signal });
  const checkpoints = checkpointsPanel(path, {
    signal: controller.signal,
    onRestored: () => changes.refresh(),
  });
  const interactive = interactivePanel(path, { signal: controller.signal });
  const ports = portsPanel(path, { signal: controller.signal });
  const streamState = h('span.stream-state', { id: 'stream-state' }, 'connecting');
  let outputCall;

  fill(
    container,
    h('p.crumbs', {}, h('a', { href: '#/sessions' }, 'Sessions'), ' / ', id),
    h('h1', {}, 'Session ', h('code', {}, id), ' ', streamState),
    detail,
    h(
      'div.grid',
      {},
      h(
        'section.card.wide',
        { 'aria-labelledby': 'timeline-title' },
        h('h2', { id: 'timeline-title' }, 'Calls'),
        h('div.table-wrap', {}, table('table', ['Time', 'Tool', 'Input', 'Status', 'Duration'], timeline)),
      ),
      h('section.card.wide', {}, outputTitle, output),
      interactive.element,
      h('section.card', {}, h('h2', {}, 'Todo list'), todos),
      changes.element,
      checkpoints.element,
      ports.element,
    ),
  );

  function upsert(callId, fields) {
    const call = calls.get(callId) ?? { callId, status: 'running' };
    Object.assign(call, fields);
    calls.set(callId, call);
    if (calls.size > MAX_ROWS) calls.delete(calls.keys().next().value);
    return call;
  }

  function drawCalls() {
    const rows = [...calls.values()]
      .sort((a, b) => Date.parse(b.time) - Date.parse(a.time))
      .map((c) =>
        h(
          'tr',
          { dataset: { call: c.callId, tool: c.tool, status: c.status } },
          h('td', {}, time(c.time)),
          h('td', {}, h('code', {}, c.tool), c.caller === 'admin' ? h('small', {}, ' by admin') : ''),
          h('td.summary', { title: c.inputSummary ?? '' }, c.inputSummary ?? ''),
          h('td', {}, pill(c.status), c.errorCode ? h('small', {}, ` ${c.errorCode}`) : ''),
          h('td.num', {}, c.status === 'running' ? '…' : ms(c.durationMs)),
        ),
      );
    fill(timeline, rows.length ? rows : h('tr', {}, h('td.empty', { colspan: 5 }, 'No calls yet.')));
  }

  async function loadDetail() {
    try {
      const s = await api(path);
      const rt = s.runtime;
      fill(
        detail,
        h(
          'dl.facts',
          {},
          fact('Profile', s.profile),
          fact('Permissions', s.permissions.join(', ')),
          fact('Needs approval', s.approval.join(', ') || 'nothing'),
          fact('Created', `${time(s.createdAt)} (${ago(s.createdAt)})`),
          fact('Expires', new Date(s.expiresAt).toLocaleString()),
          fact(
            'Disk',
            `${bytes(s.usage.bytes)} in ${s.usage.files} ${s.usage.files === 1 ? 'file' : 'files'}${s.usage.limitBytes ? ` of ${bytes(s.usage.limitBytes)}` : ''}`,
          ),
          fact('Command logs', bytes(s.usage.logBytes)),
          fact(
            'Runtime',
            rt
              ? [
                  pill(rt.state),
                  ` ${rt.backend}${rt.isolated ? '' : ' (unisolated)'}, RSS ${bytes(rt.rssBytes)}`,
                ]
              : '—',
          ),
        ),
      );
      return s;
    } catch (err) {
      fill(
        detail,
        h(
          'p.error',
          { role: 'alert' },
          err.status === 404 ? 'This session does not exist (any more).' : err.message,
        ),
      );
    }
  }

  async function loadTodos() {
    try {
      const { todos: items } = await api(`${path}/todos`);
      fill(
        todos,
        items.length
          ? items.map((t) =>
              h(
                'li',
                { dataset: { status: t.status } },
                pill(t.status.replace('_', ' '), t.status),
                ' ',
                t.content,
              ),
            )
          : h('li.empty', {}, 'No todos.'),
      );
    } catch (err) {
      fill(todos, h('li.empty', {}, err.message));
    }
  }

  async function loadHistory() {
    try {
      const { entries } = await api('/v1/audit', { query: { sessionId: id, limit: 50 } });
      for (const e of entries.reverse()) {
        if (calls.has(e.callId) && calls.get(e.callId).status === 'running') continue;
        upsert(e.callId, {
          tool: e.tool,
          time: e.time,
          inputSummary: e.inputSummary,
          status: e.status,
          errorCode: e.errorCode,
          durationMs: e.durationMs,
          caller: e.caller,
        });
      }
      drawCalls();
    } catch (err) {
      say(err.message, 'error');
    }
  }

  let detailTimer;
  const refreshDetailSoon = () => {
    clearTimeout(detailTimer);
    detailTimer = setTimeout(loadDetail, 500);
  };

  function onEvent({ event, data }) {
    if (event === 'tool_call_start') {
      upsert(data.callId, {
        tool: data.tool,
        time: new Date().toISOString(),
        inputSummary: data.inputSummary,
        caller: data.caller,
        status: 'running',
      });
    } else if (event === 'tool_output_chunk') {
      if (outputCall !== data.callId) {
        outputCall = data.callId;
        output.textContent = '';
        fill(outputTitle, 'Output of ', h('code', {}, data.tool), ' ', h('small', {}, data.callId));
      }
      output.append(h(`span.${data.stream}`, {}, data.chunk));
      if (output.textContent.length > MAX_OUTPUT) output.firstChild?.remove();
      output.scrollTop = output.scrollHeight;
    } else if (event === 'error') {
      const status =
        data.error?.code === 'APPROVAL_PENDING'
          ? 'pending'
          : data.error?.type === 'permission_error' || data.error?.type === 'rate_limited'
            ? 'refused'
            : 'error';
      upsert(data.callId, { tool: data.tool, errorCode: data.error?.code, status });
    } else if (event === 'network_connection') {
      // One egress connection of the session's commands or web_fetch, as its audit row shows it.
      const { host, port, address, via, decision, reason, bytesUp, bytesDown } = data;
      upsert(data.callId, {
        tool: 'network',
        time: new Date(data.startedAt).toISOString(),
        inputSummary: JSON.stringify({ host, port, address, via, decision, reason, bytesUp, bytesDown }),
        status: decision === 'denied' ? 'refused' : 'success',
        errorCode: decision === 'denied' ? 'EGRESS_DENIED' : undefined,
        durationMs: data.durationMs,
        caller: 'session',
      });
    } else if (event === 'tool_call_end') {
      const call = calls.get(data.callId);
      upsert(data.callId, {
        tool: data.tool,
        time: call?.time ?? new Date().toISOString(),
        status: data.success ? 'success' : call?.status === 'running' ? 'error' : call?.status,
        durationMs: data.durationMs,
      });
      if (data.tool === 'todo_write' && data.success) loadTodos();
      // A tool not known (yet) as read-only counts as one that may change files.
      if (!readOnlyTools?.has(data.tool)) {
        refreshDetailSoon();
        changes.refreshSoon();
      }
      if (CHECKPOINT_TOOLS.has(data.tool)) checkpoints.refresh();
      if (INTERACTIVE_TOOL.test(data.tool)) interactive.refresh();
      if (PORT_TOOLS.has(data.tool)) ports.refresh();
    }
    drawCalls();
  }

  // The panels' reads are operator reads (GET …/changes, …/checkpoints with the admin key): never parked,
  // never counted in the session's stats or rate limit, not in its call list.
  loadDetail();
  changes.refresh();
  checkpoints.refresh();
  interactive.refresh();
  ports.refresh();
  loadHistory();
  loadTodos();
  if (!readOnlyTools) loadReadOnlyTools().catch((err) => say(err.message, 'error'));
  streamEvents(`${path}/events`, onEvent, controller.signal, (s) => {
    streamState.textContent = s === 'open' ? 'live' : s;
    streamState.dataset.state = s;
  });
  return () => {
    controller.abort();
    clearTimeout(detailTimer);
    changes.dispose();
  };
}

const fact = (term, value) => [h('dt', {}, term), h('dd', {}, value)];
