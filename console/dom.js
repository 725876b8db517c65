// Small DOM and formatting helpers for the console's pages: element building without innerHTML (so no
// markup from the API is ever parsed), and readable times, ages and sizes.

/** h('tag.class', { attr: value, onclick: fn }, ...children): an element; strings become text nodes. */
export function h(spec, attrs = {}, ...children) {
  const [tag, ...classes] = spec.split('.');
  const el = document.createElement(tag || 'div');
  if (classes.length) el.className = classes.join(' ');
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key === 'value') el.value = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export function ago(iso) {
  if (!iso) return '—';
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h ${Math.floor((seconds % 3600) / 60)}m ago`;
  return `${Math.floor(seconds / 86400)}d ago`;
}

export function age(iso) {
  return ago(iso).replace(' ago', '');
}

export function time(iso) {
  return iso ? new Date(iso).toLocaleTimeString() : '—';
}

export function bytes(n) {
  if (n === undefined || n === null) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

export function ms(n) {
  if (n === undefined || n === null) return '—';
  return n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(2)} s`;
}

/** A status pill. */
export function pill(text, kind = text) {
  return h(`span.pill.pill-${kind}`, {}, text);
}

let sayTimer;

/** Shows a short message in the status line (announced to screen readers); errors stay longer. */
export function say(message, kind = 'info') {
  const line = document.getElementById('status-line');
  line.textContent = message;
  line.dataset.kind = kind;
  clearTimeout(sayTimer);
  sayTimer = setTimeout(() => (line.textContent = ''), kind === 'error' ? 10_000 : 4000);
}

/**
 * A button that copies `text` to the clipboard. Where the Clipboard API is missing (a page over plain
 * HTTP that is not localhost) or refuses, the status line shows the text, where it can be selected.
 */
export function copyButton(text, { label = 'Copy', what = 'Text', ...attrs } = {}) {
  const copy = () =>
    navigator.clipboard
      ? navigator.clipboard.writeText(text).then(() => say(`${what} copied`))
      : Promise.reject(new Error('no clipboard'));
  return h(
    'button.copy',
    { type: 'button', ...attrs, onclick: () => copy().catch(() => say(`${what}: ${text}`)) },
    label,
  );
}

/** The pending-approvals count in the header. */
export function setApprovalCount(count) {
  const badge = document.getElementById('approval-count');
  badge.textContent = String(count);
  badge.dataset.count = String(count);
}

/** A table with a header row of column names (th scope=col) over `body` (a tbody or rows). */
export function table(spec, headers, body) {
  return h(
    spec,
    {},
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        headers.map((t) => h('th', { scope: 'col' }, t)),
      ),
    ),
    body,
  );
}
