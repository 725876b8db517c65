// The session page's "Ports" panel: whether the session may expose ports, the ports it exposed (its
// profile's or expose_port's) and whether something listens on each, from GET /v1/sessions/{id}/ports
// (not a tool call: no audit row, no rate limit). "Link" asks for a signed link (POST …/ports/{port}/links,
// an hour) and shows it to open in a new tab; "View" shows the page inline. The inline view is a
// sandboxed frame without allow-same-origin: the app is served from this origin, and in a same-origin
// frame its scripts could read this tab's sessionStorage, where the admin key lives (docs/previews.md).
import { api } from './api.js';
import { fill, h, pill } from './dom.js';

const LINK_MINUTES = 60;

export function portsPanel(path, { signal }) {
  const list = h('ul.ports', { id: 'ports' });
  const view = h('div.preview-view', { id: 'preview-view' });
  const element = h(
    'section.card.wide',
    { 'aria-labelledby': 'ports-title' },
    h('h2', { id: 'ports-title' }, 'Ports'),
    list,
    view,
  );
  /** port → its last link { url, path, expiresAt } */
  const links = new Map();
  let state = { mayExpose: false, exposed: [], running: false, listening: [] };

  async function load() {
    try {
      state = await api(`${path}/ports`, { signal });
      draw();
    } catch (err) {
      if (!signal.aborted) fill(list, h('li.empty', {}, err.message));
    }
  }

  function draw() {
    if (!state.mayExpose)
      return fill(list, h('li.empty', {}, 'This session’s profile may not expose ports.'));
    if (!state.exposed.length)
      return fill(list, h('li.empty', {}, 'No exposed ports (expose_port exposes one).'));
    const listening = new Set(state.listening.map((entry) => entry.port));
    fill(
      list,
      ...state.exposed.map(({ port, exposedBy }) => {
        const link = links.get(port);
        return h(
          'li',
          { dataset: { port: String(port) } },
          h('strong', {}, String(port)),
          ' ',
          listening.has(port) ? pill('listening') : pill('not listening', 'not-listening'),
          ' ',
          h('small', {}, `exposed by ${exposedBy}`),
          ' ',
          h('button.link', { type: 'button', onclick: () => makeLink(port) }, 'Link'),
          ' ',
          h('button.view', { type: 'button', onclick: () => show(port) }, 'View'),
          link
            ? h(
                'div.preview-link',
                {},
                h('a', { href: link.url, target: '_blank', rel: 'noopener noreferrer' }, link.url),
                ' ',
                h('small', {}, `valid until ${new Date(link.expiresAt).toLocaleString()}`),
              )
            : '',
        );
      }),
    );
  }

  async function linkFor(port) {
    const link = await api(`${path}/ports/${port}/links`, {
      method: 'POST',
      body: { minutes: LINK_MINUTES },
      signal,
    });
    links.set(port, link);
    draw();
    return link;
  }

  async function makeLink(port) {
    try {
      await linkFor(port);
    } catch (err) {
      if (!signal.aborted) fill(view, h('p.empty', {}, err.message));
    }
  }

  async function show(port) {
    try {
      const link = links.get(port) ?? (await linkFor(port));
      fill(
        view,
        h('h3', {}, `Port ${port}`),
        h('iframe.preview-frame', {
          src: link.path,
          title: `Preview of port ${port}`,
          sandbox: 'allow-scripts allow-forms allow-popups',
          referrerpolicy: 'no-referrer',
        }),
      );
    } catch (err) {
      if (!signal.aborted) fill(view, h('p.empty', {}, err.message));
    }
  }

  return { element, refresh: load };
}
