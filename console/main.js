// The console's entry: sign-in (the admin key into sessionStorage), the hash router between pages, and
// the pending-approvals badge in the header. Each page module exports render(container, params) and
// returns a cleanup function that stops its polling and streams.
import { adminKey, api, onUnauthorized } from './api.js';
import { say, setApprovalCount } from './dom.js';
import * as sessions from './sessions.js';
import * as activity from './activity.js';
import * as approvals from './approvals.js';
import * as audit from './audit.js';
import * as stats from './stats.js';
import * as evals from './evals.js';

const pages = { sessions, session: activity, approvals, audit, stats, evals };
const page = document.getElementById('page');
const signIn = document.getElementById('sign-in');
const nav = document.getElementById('nav');
let cleanup = () => {};
let badgeTimer;

function route() {
  const [name = 'sessions', ...rest] = location.hash.replace(/^#\/?/, '').split('/');
  return { name: pages[name] ? name : 'sessions', params: rest.map(decodeURIComponent) };
}

function show() {
  cleanup();
  cleanup = () => {};
  page.replaceChildren();
  if (!adminKey.get()) {
    signIn.hidden = false;
    nav.hidden = true;
    document.getElementById('admin-key').focus();
    return;
  }
  signIn.hidden = true;
  nav.hidden = false;
  const { name, params } = route();
  for (const link of nav.querySelectorAll('a[data-page]')) {
    const current = link.dataset.page === name || (name === 'session' && link.dataset.page === 'sessions');
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  document.title = `${name} · toolgate console`;
  page.dataset.page = name;
  cleanup = pages[name].render(page, params) ?? (() => {});
}

async function refreshBadge() {
  if (!adminKey.get()) return;
  try {
    const { approvals: pending } = await api('/v1/approvals', { query: { status: 'pending' } });
    setApprovalCount(pending.length);
  } catch {
    // The page shows API errors; the badge just keeps its last count.
  }
}

document.getElementById('sign-in-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = document.getElementById('admin-key');
  const error = document.getElementById('sign-in-error');
  adminKey.set(input.value.trim());
  try {
    // Any admin-only read proves the key.
    await api('/v1/approvals', { query: { limit: 1 } });
    input.value = '';
    error.textContent = '';
    say('Signed in');
    refreshBadge();
    show();
  } catch (err) {
    adminKey.clear();
    error.textContent = err.status === 401 || err.status === 403 ? 'That key was refused.' : err.message;
  }
});

document.getElementById('sign-out').addEventListener('click', () => {
  adminKey.clear();
  say('Signed out');
  show();
});

onUnauthorized(() => {
  // A key refused while the sign-in form is up is that form's own answer: its error line says so, once.
  if (!signIn.hidden) return;
  adminKey.clear();
  say('The admin key was refused; sign in again.', 'error');
  show();
});

window.addEventListener('hashchange', show);
badgeTimer = setInterval(refreshBadge, 2000);
window.addEventListener('pagehide', () => clearInterval(badgeTimer));
refreshBadge();
show();
