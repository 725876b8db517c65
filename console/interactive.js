// The session page's "Shells and terminals" panel: the session's persistent shells (state, cwd, the last
// command with its exit code and output), its terminals (the program, its size and the screen a person
// would see, as the runtime's terminal emulator renders it) and its kernels, from
// GET /v1/sessions/{id}/interactive. That read is no tool call (no audit row, no rate limit), starts no
// runtime and is not the runtime's activity, and takes no terminal output from the agent: so the panel
// polls while the page is open (a full-screen program redraws with no call at all), and reads at once
// when a call that may change them ends. Screens and output go into the page as text nodes only.
import { api } from './api.js';
import { ago, fill, h, pill } from './dom.js';

const POLL_MS = 2000;
/** Tools whose end changes what the panel shows. */
export const INTERACTIVE_TOOL = /^(shell_|terminal_|kernel_|exec_command$|write_stdin$|run_code$)/;

export function interactivePanel(path, { signal }) {
  const body = h('div.interactive', { id: 'interactive' }, h('p.empty', {}, 'Loading…'));
  const element = h(
    'section.card.wide',
    { 'aria-labelledby': 'interactive-title' },
    h('h2', { id: 'interactive-title' }, 'Shells and terminals'),
    body,
  );
  let inFlight = false;
  let again = false;

  async function load() {
    // One read at a time; a refresh asked meanwhile runs right after it.
    if (inFlight) return void (again = true);
    inFlight = true;
    try {
      draw(await api(`${path}/interactive`, { signal }));
    } catch (err) {
      if (!signal.aborted) fill(body, h('p.empty', {}, err.message));
    } finally {
      inFlight = false;
      if (again && !signal.aborted) {
        again = false;
        load();
      }
    }
  }

  function draw(view) {
    const parts = [];
    if (view.runtime !== 'running')
      parts.push(
        h(
          'p.empty',
          {},
          'The runtime is ',
          pill(view.runtime),
          ': no shell, terminal or kernel lives while it does not run.',
        ),
      );
    else if (!view.shells.length && !view.terminals.length && !view.kernels.length)
      parts.push(h('p.empty', {}, 'No shells, terminals or kernels are open.'));
    parts.push(view.shells.map(shell), view.terminals.map(terminal));
    if (view.kernels.length)
      parts.push(h('h3', {}, 'Kernels'), h('ul.kernels', {}, view.kernels.map(kernel)));
    fill(body, parts);
  }

  const timer = setInterval(load, POLL_MS);
  signal.addEventListener('abort', () => clearInterval(timer), { once: true });
  return { element, refresh: load };
}

function shell(s) {
  const last =
    s.lastCommand !== undefined
      ? h(
          'p.last-command',
          {},
          h('code', {}, `$ ${s.lastCommand}`),
          ' ',
          h(
            'small',
            {},
            s.lastExitCode === null || s.lastExitCode === undefined ? '' : `exit ${s.lastExitCode}`,
          ),
        )
      : h('p.empty', {}, 'No command yet.');
  return h(
    'article.shell',
    { dataset: { shell: s.name, state: s.state } },
    h(
      'h3',
      {},
      'Shell ',
      h('code', {}, s.name),
      ' ',
      pill(s.state, `shell-${s.state}`),
      ' in ',
      h('code.cwd', {}, s.cwd),
      ' ',
      h(
        'small',
        {},
        `${s.commands} ${s.commands === 1 ? 'command' : 'commands'}, last used ${ago(new Date(s.lastUsedAt).toISOString())}`,
      ),
    ),
    s.deadReason ? h('p.error', {}, `Dead: ${s.deadReason}`) : '',
    last,
    s.lastOutput
      ? h(
          'pre.output.shell-output',
          { tabindex: 0, 'aria-label': `Output of the last command in shell ${s.name}` },
          s.lastOutput,
        )
      : '',
  );
}

function terminal(t) {
  const state = t.running ? 'running' : `exited ${t.exitCode ?? ''}`.trim();
  return h(
    'article.terminal',
    { dataset: { terminal: t.terminalId, running: String(t.running) } },
    h(
      'h3',
      {},
      'Terminal ',
      h('code', {}, t.terminalId),
      ' ',
      pill(state, t.running ? 'running' : 'stopped'),
      ' ',
      h('small', {}, `${t.rows}×${t.cols}, pid ${t.pid}`),
    ),
    h('p', {}, h('code', {}, t.command)),
    h(
      'pre.screen',
      { tabindex: 0, 'aria-label': `Screen of terminal ${t.terminalId}` },
      t.screen.length ? t.screen.join('\n') : h('span.placeholder', {}, '(blank screen)'),
    ),
  );
}

function kernel(k) {
  return h(
    'li',
    { dataset: { kernel: k.kernel } },
    h('code', {}, k.kernel),
    ` ${k.language} `,
    pill(k.busy ? 'busy' : 'idle', k.busy ? 'shell-busy' : 'shell-idle'),
    ` ${k.executions} ${k.executions === 1 ? 'cell' : 'cells'}`,
  );
}
