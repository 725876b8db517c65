// Approvals page: calls parked for an operator, each with its full input (a diff preview for edits and
// patches, the command for run_command), approved or denied with a reason. Polled every 2 s, so every
// open console sees a decision made in another one; recently decided calls are listed below.
import { api } from './api.js';
import { ago, fill, h, pill, say, setApprovalCount, time, table } from './dom.js';

const MAX_PREVIEW_LINES = 400;

export function render(container) {
  const pendingList = h('div.approvals', { id: 'pending-approvals' });
  const decidedList = h('tbody', { id: 'decided-approvals' });
  const cards = new Map();
  fill(
    container,
    h('h1', {}, 'Approvals'),
    h(
      'p.hint',
      {},
      'Calls wait here (the agent got 202) until you decide; the agent long-polls for the result.',
    ),
    pendingList,
    h('h2', {}, 'Recently decided'),
    h('div.table-wrap', {}, table('table', ['Decided', 'Session', 'Tool', 'Status', 'Reason'], decidedList)),
  );

  async function decide(approval, action, reasonInput, buttons) {
    for (const b of buttons) b.disabled = true;
    const reason = reasonInput.value.trim();
    try {
      const record = await api(`/v1/approvals/${encodeURIComponent(approval.callId)}/${action}`, {
        method: 'POST',
        body: reason ? { reason } : {},
      });
      say(`${approval.tool} ${approval.callId}: ${record.status}`);
    } catch (err) {
      say(err.message, 'error');
    }
    load();
  }

  function card(approval) {
    const reasonId = `reason-${approval.callId}`;
    const reason = h('input', { id: reasonId, name: 'reason', placeholder: 'optional', maxlength: 1000 });
    const approve = h('button.approve', { type: 'button' }, 'Approve');
    const deny = h('button.danger.deny', { type: 'button' }, 'Deny');
    approve.addEventListener('click', () => decide(approval, 'approve', reason, [approve, deny]));
    deny.addEventListener('click', () => decide(approval, 'deny', reason, [approve, deny]));
    return h(
      'article.card.approval',
      {
        dataset: { call: approval.callId, tool: approval.tool },
        'aria-label': `${approval.tool} call ${approval.callId}`,
      },
      h(
        'header',
        {},
        h('h2', {}, h('code', {}, approval.tool)),
        h('span', {}, 'session ', h('a', { href: `#/session/${approval.sessionId}` }, approval.sessionId)),
        h(
          'small',
          { 'data-created': approval.createdAt },
          ` parked ${ago(approval.createdAt)}, expires ${time(approval.expiresAt)}`,
        ),
      ),
      preview(approval.tool, approval.input),
      h('div.decide', {}, h('label', { for: reasonId }, 'Reason'), reason, approve, deny),
    );
  }

  async function load() {
    try {
      const [{ approvals: pending }, decided] = await Promise.all([
        api('/v1/approvals', { query: { status: 'pending' } }),
        Promise.all(
          ['completed', 'denied', 'expired'].map((status) =>
            api('/v1/approvals', { query: { status, limit: 10 } }),
          ),
        ),
      ]);
      // Cards are kept while their call is pending, so a reason being typed survives the refresh.
      setApprovalCount(pending.length);
      const ids = new Set(pending.map((a) => a.callId));
      for (const [callId, el] of cards) {
        if (ids.has(callId)) continue;
        el.remove();
        cards.delete(callId);
      }
      for (const approval of pending.slice().reverse()) {
        if (!cards.has(approval.callId)) {
          const el = card(approval);
          cards.set(approval.callId, el);
          pendingList.prepend(el);
        }
      }
      pendingList.querySelector('.empty')?.remove();
      if (cards.size === 0) pendingList.append(h('p.empty', {}, 'Nothing waits for approval.'));
      const rows = decided
        .flatMap((r) => r.approvals)
        .sort((a, b) => Date.parse(b.decidedAt) - Date.parse(a.decidedAt))
        .slice(0, 15)
        .map((a) =>
          h(
            'tr',
            { dataset: { call: a.callId, status: a.status } },
            h('td', {}, time(a.decidedAt)),
            h('td', {}, h('a', { href: `#/session/${a.sessionId}` }, a.sessionId)),
            h('td', {}, h('code', {}, a.tool)),
            h('td', {}, pill(a.status)),
            h('td', {}, a.reason ?? ''),
          ),
        );
      fill(decidedList, rows.length ? rows : h('tr', {}, h('td.empty', { colspan: 5 }, 'None yet.')));
    } catch (err) {
      say(err.message, 'error');
    }
  }

  load();
  const timer = setInterval(load, 2000);
  return () => clearInterval(timer);
}

/** What the operator approves: the command, a diff of an edit, a patch, or the input as JSON. */
export function preview(tool, input) {
  if (tool === 'run_command' && typeof input?.command === 'string') {
    return h(
      'div.preview',
      {},
      h('pre.command', {}, `$ ${input.command}`),
      input.cwd && input.cwd !== '.' ? h('p', {}, 'in ', h('code', {}, input.cwd)) : '',
      input.env ? h('p', {}, 'env: ', h('code', {}, Object.keys(input.env).join(', '))) : '',
    );
  }
  if (tool === 'edit_file' && typeof input?.old_string === 'string') {
    return h(
      'div.preview',
      {},
      h('p', {}, h('code', {}, input.path)),
      diff(input.old_string, input.new_string ?? ''),
    );
  }
  if (tool === 'multi_edit' && Array.isArray(input?.edits)) {
    return h(
      'div.preview',
      {},
      h('p', {}, h('code', {}, input.path)),
      input.edits.map((e) => diff(e.old_string ?? '', e.new_string ?? '')),
    );
  }
  if (tool === 'apply_patch' && typeof input?.patch === 'string') {
    return h('div.preview', {}, diffLines(input.patch.split('\n')));
  }
  if (tool === 'write_file' && typeof input?.content === 'string') {
    return h(
      'div.preview',
      {},
      h('p', {}, h('code', {}, input.path), ' (whole file)'),
      diffLines(input.content.split('\n').map((line) => `+${line}`)),
    );
  }
  return h('div.preview', {}, h('pre', {}, JSON.stringify(input, null, 2)));
}

function diff(oldText, newText) {
  return diffLines([...oldText.split('\n').map((l) => `-${l}`), ...newText.split('\n').map((l) => `+${l}`)]);
}

function diffLines(lines) {
  const shown = lines.slice(0, MAX_PREVIEW_LINES);
  const kind = (line) =>
    line.startsWith('+++') || line.startsWith('---')
      ? 'file'
      : line.startsWith('@@')
        ? 'hunk'
        : line.startsWith('+')
          ? 'add'
          : line.startsWith('-')
            ? 'del'
            : 'ctx';
  return h(
    'pre.diff',
    {},
    shown.map((line) => h(`span.${kind(line)}`, {}, `${line}\n`)),
    lines.length > shown.length ? h('span.more', {}, `… ${lines.length - shown.length} more lines`) : '',
  );
}
