// A session's activity, live: its settings, disk and runtime; the timeline of calls (from the audit log,
// then the event stream /v1/sessions/{id}/events); a running command's output as it streams; the todo
// list; and the files its edit calls changed. Watching makes no tool call of its own (todos come from
// GET /v1/sessions/{id}/todos), so it uses none of the session's rate limit and adds no audit rows.
import { api, streamEvents } from './api.js';
import { ago, bytes, fill, h, ms, pill, say, time } from './dom.js';

const EDIT_TOOLS = new Set([
  'write_file',
  'edit_file',
  'multi_edit',
  'apply_patch',
  'delete_file',
  'move_file',
  'create_directory',
  'undo_edit',
]);
const MAX_ROWS = 200;
const MAX_OUTPUT = 200_000;

export function render(container, [id]) {
  const controller = new AbortController();
  const calls = new Map();
  const files = new Map();
  const path = `/v1/sessions/${encodeURIComponent(id)}`;
  const detail = h('div.detail');
  const timeline = h('tbody', { id: 'timeline' });
  const output = h('pre.output', { id: 'live-output', tabindex: 0, 'aria-label': 'Command output' });
  const outputTitle = h('h2', {}, 'Output');
  const todos = h('ul.todos', { id: 'todos' });
  const changed = h('ul.files', { id: 'files-changed' });
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
        h(
          'div.table-wrap',
          {},
          h(
            'table',
            {},
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Time', 'Tool', 'Input', 'Status', 'Duration'].map((t) => h('th', { scope: 'col' }, t)),
              ),
            ),
            timeline,
          ),
        ),
      ),
      h('section.card.wide', {}, outputTitle, output),
      h('section.card', {}, h('h2', {}, 'Todo list'), todos),
      h('section.card', {}, h('h2', {}, 'Files changed'), changed),
    ),
  );

  function upsert(callId, fields) {
    const call = calls.get(callId) ?? { callId, status: 'running' };
    Object.assign(call, fields);
    calls.set(callId, call);
    if (calls.size > MAX_ROWS) calls.delete(calls.keys().next().value);
    if (EDIT_TOOLS.has(call.tool) && call.status === 'success') noteFiles(call);
    return call;
  }

  function noteFiles(call) {
    let input = {};
    try {
      input = JSON.parse(call.inputSummary ?? '{}') ?? {};
    } catch {
      // a summary cut at its length limit is not JSON; the path is then unknown
    }
    const paths = [input.path, input.source, input.destination].filter((p) => typeof p === 'string');
    if (paths.length === 0) paths.push(call.tool === 'apply_patch' ? '(files of a patch)' : '(unknown path)');
    for (const p of paths) files.set(p, { tool: call.tool, time: call.time });
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
    const list = [...files.entries()].map(([p, f]) =>
      h('li', {}, h('code', {}, p), ' ', h('small', {}, `${f.tool}, ${ago(f.time)}`)),
    );
    fill(changed, list.length ? list : h('li.empty', {}, 'No files changed yet.'));
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
    } else if (event === 'tool_call_end') {
      const call = calls.get(data.callId);
      upsert(data.callId, {
        tool: data.tool,
        time: call?.time ?? new Date().toISOString(),
        status: data.success ? 'success' : call?.status === 'running' ? 'error' : call?.status,
        durationMs: data.durationMs,
      });
      if (data.tool === 'todo_write' && data.success) loadTodos();
      if (EDIT_TOOLS.has(data.tool) || data.tool === 'run_command') refreshDetailSoon();
    }
    drawCalls();
  }

  loadDetail();
  loadHistory();
  loadTodos();
  streamEvents(`${path}/events`, onEvent, controller.signal, (s) => {
    streamState.textContent = s === 'open' ? 'live' : s;
    streamState.dataset.state = s;
  });
  return () => {
    controller.abort();
    clearTimeout(detailTimer);
  };
}

const fact = (term, value) => [h('dt', {}, term), h('dd', {}, value)];
