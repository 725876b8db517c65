// The session page's "Checkpoints" panel: the session's checkpoints (name, time, size) from
// GET /v1/sessions/{id}/checkpoints, each with a restore button that asks first and then calls
// POST …/checkpoints/{cp}/restore — the checkpoint_restore tool, under the session's approval policy:
// a restore that must be approved answers 202 and shows as waiting until an operator decides.
import { api } from './api.js';
import { bytes, fill, h, pill, say, time } from './dom.js';

export function checkpointsPanel(path, { signal, onRestored }) {
  const list = h('ul.checkpoints', { id: 'checkpoints' });
  const element = h(
    'section.card',
    { 'aria-labelledby': 'checkpoints-title' },
    h('h2', { id: 'checkpoints-title' }, 'Checkpoints'),
    list,
  );
  let checkpoints = [];
  /** checkpoint id → { state: 'restoring' | 'pending' | 'restored' | 'error', text } */
  const states = new Map();

  async function load() {
    try {
      // An operator read: not the session's call, never parked by its approval policy.
      ({ checkpoints } = await api(`${path}/checkpoints`, { signal }));
      draw();
    } catch (err) {
      if (!signal.aborted) fill(list, h('li.empty', {}, err.message));
    }
  }

  function draw() {
    fill(
      list,
      checkpoints.length
        ? checkpoints
            .slice()
            .reverse()
            .map((cp) => {
              const state = states.get(cp.id);
              return h(
                'li',
                { dataset: { checkpoint: cp.id, state: state?.state } },
                h('strong', {}, cp.name ?? '(no name)'),
                ' ',
                h(
                  'small',
                  {},
                  `${time(cp.createdAt)} · ${cp.files} ${cp.files === 1 ? 'file' : 'files'}, ${bytes(cp.bytes)}`,
                ),
                ' ',
                h(
                  'button.restore',
                  {
                    type: 'button',
                    disabled: state?.state === 'restoring' || state?.state === 'pending',
                    'aria-label': `Restore checkpoint ${cp.name ?? cp.id}`,
                    onclick: () => restore(cp),
                  },
                  'restore',
                ),
                state ? h('div.restore-state', {}, pill(state.state), ' ', state.text ?? '') : '',
              );
            })
        : h('li.empty', {}, 'No checkpoints.'),
    );
  }

  async function restore(cp) {
    const label = cp.name ? `"${cp.name}"` : cp.id;
    if (!confirm(`Restore checkpoint ${label}? Files changed since then are overwritten or removed.`)) return;
    states.set(cp.id, { state: 'restoring' });
    draw();
    try {
      let result = await api(`${path}/checkpoints/${encodeURIComponent(cp.id)}/restore`, {
        method: 'POST',
        signal,
      });
      // Parked for approval: wait (long-polls) until an operator decides; a denial throws its 403.
      while (result?.pending) {
        states.set(cp.id, { state: 'pending', text: 'waiting for an operator to approve the restore' });
        draw();
        result = await api(`${path}/calls/${encodeURIComponent(result.callId)}`, {
          query: { wait: 25 },
          signal,
        });
      }
      const { written, removed } = result.data ?? result;
      states.set(cp.id, { state: 'restored', text: `${written} written, ${removed} removed` });
      say(`Restored checkpoint ${label}`);
      onRestored();
    } catch (err) {
      if (signal.aborted) return;
      states.set(cp.id, { state: 'error', text: err.message });
    }
    draw();
  }

  return { element, refresh: load };
}
