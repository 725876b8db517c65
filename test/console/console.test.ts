// The operator console in a real headless Chromium against the real app: sign in, watch a session appear
// while a script makes calls, watch a command's output stream, approve a parked call (the agent's
// long-poll completes) and deny another, filter the audit log, and see the charts drawn. Every request the
// page makes must stay on the service, and the page must run under its CSP without a violation.
// Screenshots of each page go to test-artifacts/console/. Skips (saying why) when Chromium is missing.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startApp, tempDir, type TestApp } from '../helpers/app.js';
import { needs } from '../helpers/requires.js';
import { ARTIFACTS, launchChromium } from './browser.js';

const title = 'operator console in Chromium';

describe.skipIf(needs('chromium', `the ${title}`))(title, { timeout: 45_000 }, () => {
  let t: TestApp;
  let base: string;
  let chromium: Awaited<ReturnType<typeof launchChromium>>;
  let browser: Browser;
  let page: Page;
  const requests: string[] = [];
  const problems: string[] = [];
  const failedResponses: string[] = [];

  const shot = (name: string) =>
    page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  const call = (session: { id: string; token: string }, tool: string, input: unknown) =>
    fetch(`${base}/v1/sessions/${session.id}/tools/${tool}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
  const go = async (hash: string) => {
    await page.evaluate((h) => (location.hash = h), hash);
  };

  beforeAll(async () => {
    t = await startApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    chromium = await launchChromium();
    browser = chromium.browser;
    page = await browser.newPage();
    // Shorter than the test timeout, so a stuck wait names its step.
    page.setDefaultTimeout(15_000);
    await page.setViewport({ width: 1280, height: 900 });
    page.on('request', (request) => requests.push(request.url()));
    page.on('response', (response) => {
      if (response.status() >= 400) failedResponses.push(`${response.status()} ${response.url()}`);
    });
    // Failed requests are checked one by one below; any other console error is a problem.
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        problems.push(message.text());
      }
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    // Errors the console shows its operator in the status line count too (the page catches them).
    await page.exposeFunction('reportStatusError', (text: string) => problems.push(`status line: ${text}`));
    await page.evaluateOnNewDocument(() => {
      document.addEventListener('DOMContentLoaded', () => {
        // Only the console's document has it (not a preview's page in a frame or tab).
        const line = document.getElementById('status-line');
        if (!line) return;
        new MutationObserver(() => {
          if (
            line.dataset.kind === 'error' &&
            line.textContent &&
            !line.textContent.includes('key was refused')
          ) {
            (window as unknown as { reportStatusError(text: string): void }).reportStatusError(
              line.textContent,
            );
          }
        }).observe(line, { childList: true, characterData: true, subtree: true, attributes: true });
      });
    });
  }, 60_000);

  afterAll(async () => {
    await chromium?.close();
    await t?.close();
  });

  it('serves the page with a strict CSP and signs in with the admin key kept in sessionStorage', async () => {
    const response = await page.goto(`${base}/console`, { waitUntil: 'networkidle0' });
    expect(response?.status()).toBe(200);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    await page.waitForSelector('#sign-in:not([hidden])');
    // The chart library is the Stats page's: the sign-in page does not fetch it.
    expect(requests.filter((url) => /uplot/i.test(url))).toEqual([]);
    await shot('sign-in');
    await page.type('#admin-key', 'not-the-key');
    await page.click('#sign-in-form button');
    await page.waitForFunction(() => document.getElementById('sign-in-error')?.textContent !== '');
    // One message for a wrong key: the form's, and nothing in the status line telling to sign in again.
    expect(await page.$eval('#sign-in-error', (el) => el.textContent)).toBe('That key was refused.');
    expect(await page.$eval('#status-line', (el) => el.textContent)).toBe('');
    await page.$eval('#admin-key', (el) => ((el as HTMLInputElement).value = ''));
    await page.type('#admin-key', ADMIN_KEY);
    await page.click('#sign-in-form button');
    await page.waitForSelector('#nav:not([hidden])');
    expect(await page.evaluate(() => sessionStorage.getItem('toolgate.adminKey'))).toBe(ADMIN_KEY);
    // The "Signed in" notice sits in the header, over none of the page.
    expect(await page.$eval('#status-line', (el) => el.textContent)).toBe('Signed in');
    const [lineBottom, viewTop] = await page.evaluate(() => [
      document.getElementById('status-line')!.getBoundingClientRect().bottom,
      document.getElementById('view')!.getBoundingClientRect().top,
    ]);
    expect(lineBottom).toBeLessThanOrEqual(viewTop);
    expect(requests.filter((url) => /uplot/i.test(url))).toEqual([]);
  });

  it('lists a new session live while a script makes calls in it', async () => {
    await go('#/sessions');
    await page.waitForSelector('table.sessions');
    // The replica's capacity line (GET /v1/capacity): used and allowed sessions and runtimes.
    await page.waitForFunction(() =>
      /^Capacity: \d+ \/ \d+ sessions, \d+ \/ \d+ runtimes$/.test(
        document.getElementById('capacity')?.textContent ?? '',
      ),
    );
    const agent = await t.createSession({ profile: 'execute', files: { 'README.md': '# demo\n' } });
    await (await call(agent, 'read_file', { path: 'README.md' })).json();
    await (await call(agent, 'read_file', { path: 'missing.md' })).json();
    const row = `tr[data-session="${agent.id}"]`;
    await page.waitForSelector(row, { timeout: 10_000 });
    await page.waitForFunction(
      (selector) => document.querySelector(selector)?.querySelectorAll('td.num')[0]?.textContent === '2',
      {},
      row,
    );
    expect(await page.$eval(row, (el) => el.querySelectorAll('td.num')[1].textContent)).toBe('1');
    await page.type('#session-search', 'no-such-session');
    await page.waitForSelector(`${row}`, { hidden: true });
    await page.$eval(
      '#session-search',
      (el, prefix) => {
        (el as HTMLInputElement).value = prefix;
        el.dispatchEvent(new Event('input'));
      },
      agent.id.slice(0, 10),
    );
    await page.waitForSelector(row);
    await shot('sessions');
  });

  it('creates a session (profile, TTL), shows its token once, and deletes it', async () => {
    await page.click('#create-session-toggle');
    await page.select('#new-profile', 'read-only');
    await page.type('#new-ttl', '600');
    await page.click('#create-session button[type="submit"]');
    await page.waitForSelector('#new-token');
    const token = await page.$eval('#new-token', (el) => el.textContent!);
    const id = await page.$eval('#new-session-id', (el) => el.textContent!);
    const created = await t.admin(t.http.get(`/v1/sessions/${id}`)).expect(200);
    expect(created.body.profile).toBe('read-only');
    const ttl = Date.parse(created.body.expiresAt) - Date.parse(created.body.createdAt);
    expect(ttl).toBe(600_000);
    // The token shown is the session's own.
    await t.http.get(`/v1/sessions/${id}`).set('authorization', `Bearer ${token}`).expect(200);

    await page.$eval('#session-search', (el) => {
      (el as HTMLInputElement).value = '';
      el.dispatchEvent(new Event('input'));
    });
    const row = `tr[data-session="${id}"]`;
    await page.waitForSelector(row);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click(`${row} button.danger`);
    await page.waitForSelector(row, { hidden: true });
    await t.admin(t.http.get(`/v1/sessions/${id}`)).expect(404);
  });

  it("streams a running command's output on the session page, before the command ends", async () => {
    const agent = await t.createSession({ profile: 'execute' });
    await go(`#/session/${agent.id}`);
    await page.waitForFunction(() => document.getElementById('stream-state')?.textContent === 'live');
    // Before any command the panel says what will appear there, instead of being an empty box.
    expect(await page.$eval('#live-output', (el) => el.textContent)).toMatch(/^No output yet/);
    let finished = false;
    const running = call(agent, 'run_command', {
      command: 'echo first-line; sleep 1.5; echo second-line',
    }).then(async (res) => {
      finished = true;
      return res.json();
    });
    await page.waitForFunction(
      () => document.getElementById('live-output')?.textContent?.includes('first-line'),
      {
        timeout: 10_000,
      },
    );
    expect(finished).toBe(false);
    expect(await page.$('#live-output .placeholder')).toBeNull();
    await running;
    await page.waitForFunction(() =>
      document.getElementById('live-output')?.textContent?.includes('second-line'),
    );
    await page.waitForSelector('#timeline tr[data-tool="run_command"][data-status="success"]');
    // Watching reads the todo list without a tool call (the changes panel's reads are tools: see below).
    expect(await page.$$('#timeline tr[data-tool="todo_read"]')).toHaveLength(0);
    await call(agent, 'todo_write', { todos: [{ content: 'ship the console', status: 'in_progress' }] });
    await call(agent, 'write_file', { path: 'src/app.py', content: 'print(1)\n' });
    await page.waitForFunction(() =>
      document.getElementById('todos')?.textContent?.includes('ship the console'),
    );
    await page.waitForSelector('#changes tr[data-path="src/app.py"][data-status="added"]');
    // The disk use is read again after a write.
    await page.waitForFunction(() =>
      document.querySelector('.facts')?.textContent?.includes('9 B in 1 file'),
    );
    await shot('session');
  });

  it("shows a session's shell (cwd, last command, output) and a terminal's screen, kept up to date", async () => {
    const agent = await t.createSession({ profile: 'execute' });
    const ran = await call(agent, 'shell_exec', {
      command: 'mkdir -p deep/dir && cd deep/dir && echo from-the-shell',
    });
    expect(((await ran.json()) as { data: { cwd: string } }).data.cwd).toBe('deep/dir');
    const started = await call(agent, 'exec_command', {
      cmd: 'printf \'TERMINAL-SCREEN-TEXT\\n\'; read -r reply; echo "you said $reply"; sleep 60',
      yield_time_ms: 300,
    });
    const terminalId = ((await started.json()) as { data: { terminalId: string } }).data.terminalId;
    // The session's audit log (the page's changes and checkpoints panels are operator reads, left out).
    const audited = async () =>
      (
        (await t.admin(t.http.get(`/v1/audit?sessionId=${agent.id}&limit=1000`)).expect(200)).body
          .entries as { tool: string }[]
      ).map((entry) => entry.tool);
    const before = await audited();

    await go(`#/session/${agent.id}`);
    const shellCard = '#interactive article.shell[data-shell="main"][data-state="idle"]';
    await page.waitForSelector(shellCard);
    expect(await page.$eval(`${shellCard} .cwd`, (el) => el.textContent)).toBe('deep/dir');
    expect(await page.$eval(`${shellCard} .last-command`, (el) => el.textContent)).toContain(
      '$ mkdir -p deep/dir && cd deep/dir && echo from-the-shell',
    );
    expect(await page.$eval(`${shellCard} .shell-output`, (el) => el.textContent)).toContain(
      'from-the-shell',
    );
    const screen = `#interactive article.terminal[data-terminal="${terminalId}"] pre.screen`;
    await page.waitForSelector(screen);
    expect(await page.$eval(screen, (el) => el.textContent)).toBe('TERMINAL-SCREEN-TEXT');

    // The view follows the session: the program answers typed input, the shell runs another command.
    await call(agent, 'write_stdin', { session_id: terminalId, chars: 'hello\n', yield_time_ms: 0 });
    await page.waitForFunction(
      (selector) => document.querySelector(selector)?.textContent?.includes('you said hello'),
      {},
      screen,
    );
    expect(await page.$eval(screen, (el) => el.textContent)).toBe(
      'TERMINAL-SCREEN-TEXT\nhello\nyou said hello',
    );
    await call(agent, 'shell_exec', { command: 'cd .. && exit 3' });
    await page.waitForSelector('#interactive article.shell[data-shell="main"][data-state="dead"]');
    // Watching is no call of the session's: its audit log holds only the agent's own calls.
    expect(await audited()).toEqual(['shell_exec', 'write_stdin', ...before]);
    expect(
      await page.$$('#timeline tr[data-tool="shell_list"], #timeline tr[data-tool="terminal_list"]'),
    ).toHaveLength(0);
    await shot('session-shells');

    // A terminal's 80 columns scroll inside their box on a phone, never the page.
    await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const [scrollWidth, viewport] = await page.evaluate(() => [
        document.documentElement.scrollWidth,
        window.innerWidth,
      ]);
      expect(scrollWidth).toBeLessThanOrEqual(viewport);
    } finally {
      await page.setViewport({ width: 1280, height: 900 });
    }
    await call(agent, 'terminal_close', { session_id: terminalId });
    await page.waitForFunction(() => !document.querySelector('#interactive article.terminal'));
  });

  it('shows what a command changed with its diff, lists a checkpoint and restores it', async () => {
    const agent = await t.createSession({ profile: 'execute', files: { 'notes.txt': 'alpha\nbeta\n' } });
    const checkpoint = await fetch(`${base}/v1/sessions/${agent.id}/checkpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'before the command' }),
    });
    expect(checkpoint.status).toBe(201);
    const cp = ((await checkpoint.json()) as { id: string }).id;
    await go(`#/session/${agent.id}`);
    await page.waitForFunction(() => document.getElementById('stream-state')?.textContent === 'live');
    await page.waitForSelector(`#checkpoints li[data-checkpoint="${cp}"]`);
    expect(await page.$eval(`#checkpoints li[data-checkpoint="${cp}"]`, (el) => el.textContent)).toContain(
      'before the command',
    );
    await page.waitForFunction(() =>
      document.getElementById('changes')?.textContent?.includes('No files changed'),
    );

    // Only a command touches the files: no edit tool call says which.
    const ran = await call(agent, 'run_command', {
      command: "printf 'alpha\\ngamma\\n' > notes.txt && echo new > made.txt && printf '\\0\\1' > blob.bin",
    });
    expect(((await ran.json()) as { data: { exitCode: number } }).data.exitCode).toBe(0);
    await page.waitForSelector('#changes tr[data-path="made.txt"][data-status="added"]');
    const notes = '#changes tr[data-path="notes.txt"][data-status="modified"]';
    expect(await page.$eval(notes, (el) => el.textContent)).toContain('+1−1');
    await page.click(`${notes} button`);
    await page.waitForFunction(() =>
      document.getElementById('changes-diff')?.textContent?.includes('+gamma'),
    );
    const lines = (kind: string) =>
      page.$$eval(`#changes-diff span.${kind}`, (spans) => spans.map((s) => s.textContent!.trimEnd()));
    expect(await lines('add')).toEqual(['+gamma']);
    expect(await lines('del')).toEqual(['-beta']);
    expect(await page.$eval('#changes-diff', (el) => el.textContent)).not.toContain('made.txt');
    await page.click('#changes-show-diff');
    await page.waitForFunction(() => document.getElementById('changes-diff')?.textContent?.includes('+new'));
    // A binary file is listed as such; its patch (base85) is summed up, not shown.
    expect(await page.$eval('#changes tr[data-path="blob.bin"]', (el) => el.textContent)).toContain('binary');
    const all = await page.$eval('#changes-diff', (el) => el.textContent!);
    expect(all).toContain('(binary content not shown)');
    expect(all).not.toContain('literal ');
    // The whole page in one viewport (a full-page shot repeats the sticky header mid-page): README's picture.
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.setViewport({ width: 1280, height });
    await page.screenshot({ path: path.join(ARTIFACTS, 'session-changes.png') });
    await page.setViewport({ width: 1280, height: 900 });

    let question = '';
    page.once('dialog', (dialog) => {
      question = dialog.message();
      void dialog.accept();
    });
    await page.click(`#checkpoints li[data-checkpoint="${cp}"] button.restore`);
    await page.waitForSelector(`#checkpoints li[data-checkpoint="${cp}"][data-state="restored"]`);
    expect(question).toContain('before the command');
    const since = await t.http
      .get(`/v1/sessions/${agent.id}/changes?since=${cp}&format=json`)
      .set('authorization', `Bearer ${agent.token}`)
      .expect(200);
    expect(since.body.files).toEqual([]);
    expect((await t.call(agent, 'read_file', { path: 'notes.txt' })).body.data.content).toBe('alpha\nbeta');
    await page.waitForFunction(() =>
      document.getElementById('changes')?.textContent?.includes('No files changed'),
    );
  });

  it('shows a restore that needs approval as waiting, then as refused when denied', async () => {
    const agent = await t.createSession({
      profile: 'execute',
      approval: ['checkpoint_restore', 'workspace_changes'],
    });
    const cp = (
      await t
        .admin(t.http.post(`/v1/sessions/${agent.id}/checkpoints`))
        .send({})
        .expect(201)
    ).body.id as string;
    await go(`#/session/${agent.id}`);
    const row = `#checkpoints li[data-checkpoint="${cp}"]`;
    await page.waitForSelector(row);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click(`${row} button.restore`);
    await page.waitForSelector(`${row}[data-state="pending"]`);
    expect(await page.$eval(`${row} button.restore`, (el) => (el as HTMLButtonElement).disabled)).toBe(true);
    const pending = await t.admin(t.http.get('/v1/approvals?status=pending')).expect(200);
    // The panels' reads are the operator's, not the session's: never parked, though its policy names
    // workspace_changes; the changes panel shows the (empty) changes.
    const waiting = (pending.body.approvals as { callId: string; tool: string; sessionId: string }[]).filter(
      (a) => a.sessionId === agent.id,
    );
    expect(waiting.map((a) => a.tool)).toEqual(['checkpoint_restore']);
    await page.waitForFunction(() =>
      document.getElementById('changes')?.textContent?.includes('No files changed'),
    );
    const parked = waiting[0];
    await t
      .admin(t.http.post(`/v1/approvals/${parked.callId}/deny`))
      .send({ reason: 'not now' })
      .expect(200);
    await page.waitForSelector(`${row}[data-state="error"]`);
    expect(await page.$eval(row, (el) => el.textContent)).toContain('not now');
  });

  it("approves a parked call (the agent's long-poll completes) and denies another", async () => {
    const agent = await t.createSession({
      profile: 'read-write',
      approval: ['edit_file', 'delete_file'],
      files: { 'notes.txt': 'alpha\nbeta\n' },
    });
    const parked = await call(agent, 'edit_file', {
      path: 'notes.txt',
      old_string: 'beta',
      new_string: 'gamma',
    });
    expect(parked.status).toBe(202);
    const { callId } = (await parked.json()) as { callId: string };
    const poll = (id: string) =>
      fetch(`${base}/v1/sessions/${agent.id}/calls/${id}?wait=30`, {
        headers: { authorization: `Bearer ${agent.token}` },
      });
    const longPoll = poll(callId);

    await go('#/approvals');
    const card = `article[data-call="${callId}"]`;
    await page.waitForSelector(card);
    // The operator sees the edit as a diff, not the redacted summary.
    expect(await page.$eval(`${card} .diff`, (el) => el.textContent)).toContain('+gamma');
    await page.waitForFunction(() => document.getElementById('approval-count')?.textContent === '1');
    await shot('approvals');
    await page.type(`${card} input[name="reason"]`, 'looks right');
    await page.click(`${card} button.approve`);
    const approved = await longPoll;
    expect(approved.status).toBe(200);
    expect(((await approved.json()) as { success: boolean }).success).toBe(true);
    await page.waitForSelector(card, { hidden: true });

    const second = await call(agent, 'delete_file', { path: 'notes.txt' });
    const secondId = ((await second.json()) as { callId: string }).callId;
    const secondPoll = poll(secondId);
    const secondCard = `article[data-call="${secondId}"]`;
    await page.waitForSelector(secondCard);
    await page.type(`${secondCard} input[name="reason"]`, 'keep the notes');
    // A second console (another tab, signed in on its own) sees the same queue and the decision.
    const other = await browser.newPage();
    other.setDefaultTimeout(15_000);
    await other.goto(`${base}/console#/approvals`);
    await other.type('#admin-key', ADMIN_KEY);
    await other.click('#sign-in-form button');
    await other.waitForSelector(secondCard);
    // Background tabs do not render; the tab being driven comes to the front.
    await page.bringToFront();
    await page.click(`${secondCard} button.deny`);
    await other.waitForSelector(`#decided-approvals tr[data-call="${secondId}"][data-status="denied"]`);
    expect(await other.$(secondCard)).toBeNull();
    await other.close();
    await page.bringToFront();
    const denied = await secondPoll;
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as { error: { code: string } }).error.code).toBe('APPROVAL_DENIED');
    await page.waitForSelector(`#decided-approvals tr[data-call="${secondId}"][data-status="denied"]`);
    expect((await t.call(agent, 'read_file', { path: 'notes.txt' })).body.data.content).toBe('alpha\ngamma');
    await page.waitForFunction(() => document.getElementById('approval-count')?.textContent === '0');
  });

  it('filters the audit log, pages it with the cursor, and exports CSV and JSON', async () => {
    await go('#/audit');
    await page.waitForSelector('#audit-rows tr[data-tool]');
    await page.type('#audit-tool', 'run_command');
    await page.click('#audit-filters button[type="submit"]');
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll('#audit-rows tr')] as HTMLElement[];
      return rows.length > 0 && rows.every((row) => row.dataset.tool === 'run_command');
    });
    await page.select('#audit-status', 'error');
    await page.$eval('#audit-tool', (el) => ((el as HTMLInputElement).value = ''));
    await page.click('#audit-filters button[type="submit"]');
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll('#audit-rows tr[data-tool]')] as HTMLElement[];
      return rows.length > 0 && rows.every((row) => row.dataset.status === 'error');
    });
    await shot('audit');

    // A row's session id is shortened in the cell; its title holds all of it and the button copies it.
    const cell = await page.$eval('#audit-rows td.session a', (a) => [
      a.textContent!,
      a.getAttribute('title')!,
    ]);
    const [shown, full] = cell;
    expect(full.length).toBeGreaterThan(shown.length);
    expect(full.startsWith(shown)).toBe(true);
    await t.admin(t.http.get(`/v1/sessions/${full}`)).expect(200);
    await browser
      .defaultBrowserContext()
      .overridePermissions(base, ['clipboard-read', 'clipboard-sanitized-write']);
    await page.click('#audit-rows td.session button.copy');
    await page.waitForFunction(
      () => document.getElementById('status-line')?.textContent === 'Session id copied',
    );
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(full);

    // Pages of 25 through the API's cursor, until the whole log is loaded.
    const reader = await t.createSession({ profile: 'read-only' });
    for (let i = 0; i < 30; i++) await t.call(reader, 'todo_read', {}).expect(200);
    const total = (await t.admin(t.http.get('/v1/audit?limit=1000'))).body.entries.length as number;
    expect(total).toBeGreaterThan(25);
    await page.select('#audit-status', '');
    await page.select('#audit-limit', '25');
    await page.click('#audit-filters button[type="submit"]');
    const rowCount = () => page.$$eval('#audit-rows tr[data-tool]', (rows) => rows.length);
    await page.waitForFunction(() => document.querySelectorAll('#audit-rows tr[data-tool]').length === 25);
    while ((await rowCount()) < total) {
      const before = await rowCount();
      await page.click('#audit-more');
      await page.waitForFunction(
        (n) => document.querySelectorAll('#audit-rows tr[data-tool]').length > n,
        {},
        before,
      );
    }
    expect(await rowCount()).toBe(total);
    await page.waitForSelector('#audit-more', { hidden: true });

    // The console's own reads of sessions (its changes panels) are listed only when asked for.
    const changesRows = async (operatorReads: boolean) =>
      (
        await t.admin(
          t.http.get(`/v1/audit?tool=workspace_changes&limit=1000&operatorReads=${operatorReads}`),
        )
      ).body.entries.length as number;
    const [agentOnly, withOperator] = [await changesRows(false), await changesRows(true)];
    expect(withOperator).toBeGreaterThan(agentOnly);
    await page.type('#audit-tool', 'workspace_changes');
    await page.click('#audit-operatorReads');
    await page.select('#audit-limit', '500');
    await page.click('#audit-filters button[type="submit"]');
    await page.waitForFunction(
      (n) => document.querySelectorAll('#audit-rows tr[data-tool]').length === n,
      {},
      withOperator,
    );
    await page.click('#audit-operatorReads');
    await page.$eval('#audit-tool', (el) => ((el as HTMLInputElement).value = ''));
    await page.click('#audit-filters button[type="submit"]');
    await page.waitForFunction(
      (n) => document.querySelectorAll('#audit-rows tr[data-tool]').length === n,
      {},
      total,
    );

    const downloads = tempDir('toolgate-downloads-');
    const cdp = await page.createCDPSession();
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
    await page.click('#export-json');
    await page.click('#export-csv');
    const read = async (name: string) => {
      const file = path.join(downloads, name);
      for (let i = 0; i < 100 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 50));
      return readFileSync(file, 'utf8');
    };
    const exported = JSON.parse(await read('toolgate-audit.json')) as { callId: string }[];
    expect(exported).toHaveLength(total);
    const csv = (await read('toolgate-audit.csv')).split('\r\n');
    expect(csv[0]).toBe(
      'time,sessionId,tool,category,status,errorCode,httpStatus,durationMs,bytesIn,bytesOut,caller,entryPoint,inputSummary',
    );
    expect(csv).toHaveLength(total + 1);
    rmSync(downloads, { recursive: true, force: true });
  });

  it('draws the charts (non-empty canvases) for the picked range', async () => {
    expect(requests.filter((url) => /uplot/i.test(url))).toEqual([]);
    await go('#/stats');
    await page.click('button[data-range="900"]');
    for (const id of ['chart-calls', 'chart-rate-limited', 'chart-latency', 'chart-errors']) {
      await page.waitForSelector(`#${id} canvas`);
    }
    const painted = await page.$$eval('.chart canvas', (canvases) =>
      (canvases as HTMLCanvasElement[]).map((canvas) => {
        const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
        let colored = 0;
        for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) colored++;
        return colored;
      }),
    );
    expect(painted.length).toBe(4);
    // uPlot came with the Stats page, its stylesheet included.
    expect(
      requests
        .filter((url) => /uplot/i.test(url))
        .map((url) => new URL(url).pathname)
        .sort(),
    ).toEqual(['/console/assets/uPlot.esm.js', '/console/assets/uPlot.min.css']);
    for (const count of painted) expect(count).toBeGreaterThan(100);
    expect(await page.$eval('#stats-totals', (el) => el.textContent)).toMatch(/Calls\d+/);
    await shot('stats');
  });

  it.skipIf(needs('python3', 'the console preview test'))(
    'lists an exposed port with its link, shows the app inline, and the link opens it in a tab',
    async () => {
      // The session's own loopback on bwrap; the host's on the unisolated runtime, hence a random port.
      const port = 18_000 + Math.floor(Math.random() * 2000);
      const agent = await t.createSession({
        profile: 'execute',
        files: {
          'site/index.html':
            '<!doctype html><title>demo</title><h1 id="hello">hello from the preview</h1>' +
            '<script type="module" src="app.js"></script>',
          // A module script is fetched with an Origin header: "null" from the sandboxed inline view.
          'site/app.js': "document.getElementById('hello').dataset.ran = 'yes';\n",
        },
      });
      await call(agent, 'run_command', {
        command: `exec python3 -m http.server ${port} --bind 127.0.0.1 --directory site`,
        background: true,
      });
      for (let i = 0; i < 100; i++) {
        const { data } = await (await call(agent, 'list_ports', {})).json();
        if (data.listening.some((entry: { port: number }) => entry.port === port)) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await go(`#/session/${agent.id}`);
      await page.waitForSelector('#ports li.empty');
      // expose_port's end (on the event stream) reloads the panel.
      await (await call(agent, 'expose_port', { port })).json();
      const item = `#ports li[data-port="${port}"]`;
      await page.waitForSelector(`${item} .pill-listening`);
      // The panel redraws when a tool's end arrives on the event stream (run_command, expose_port), so a
      // click may land on a list just replaced: click again until the view shows the frame or an error.
      let shown: Awaited<ReturnType<typeof page.waitForSelector>> = null;
      for (let attempt = 0; attempt < 3 && !shown; attempt++) {
        await page.click(`${item} button.view`);
        shown = await page
          .waitForSelector('#preview-view iframe.preview-frame, #preview-view p.empty', { timeout: 5_000 })
          .catch(() => null);
      }
      expect(await shown?.evaluate((el) => (el.tagName === 'IFRAME' ? 'frame' : el.textContent))).toBe(
        'frame',
      );
      const frame = (await shown!.contentFrame())!;
      await frame.waitForSelector('#hello[data-ran="yes"]');
      expect(await frame.$eval('#hello', (el) => el.textContent)).toBe('hello from the preview');
      // The inline view is an opaque origin: the app cannot read the console's sessionStorage (the key).
      expect(await page.$eval('#preview-view iframe', (el) => el.getAttribute('sandbox'))).not.toContain(
        'allow-same-origin',
      );
      await shot('session-ports');
      const href = await page.$eval(`${item} .preview-link a`, (el) => (el as HTMLAnchorElement).href);
      expect(href.startsWith(`${base}/v1/previews/`)).toBe(true);
      const tab = await browser.newPage();
      try {
        await tab.goto(href);
        await tab.waitForSelector('#hello[data-ran="yes"]');
        expect(await tab.title()).toBe('demo');
      } finally {
        await tab.close();
      }
    },
  );

  it('fits a phone screen: no page scrolls sideways (wide tables scroll inside their box)', async () => {
    await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
    try {
      for (const hash of ['#/sessions', '#/approvals', '#/audit', '#/stats']) {
        await go(hash);
        await page.waitForSelector(`#page[data-page="${hash.slice(2)}"] h1`);
        await new Promise((resolve) => setTimeout(resolve, 300));
        const [scrollWidth, viewport] = await page.evaluate(() => [
          document.documentElement.scrollWidth,
          window.innerWidth,
        ]);
        expect(scrollWidth, hash).toBeLessThanOrEqual(viewport);
      }
      await shot('phone-stats');
    } finally {
      await page.setViewport({ width: 1280, height: 900 });
    }
  });

  it('fetched nothing from outside the service and hit no CSP violation or script error', () => {
    expect(requests.length).toBeGreaterThan(5);
    // data: and blob: URLs are made in the page (Chromium's date picker icon, the export download).
    const offService = requests.filter((url) => !/^(data|blob):/.test(url) && !url.startsWith(`${base}/`));
    expect(offService).toEqual([]);
    expect(requests.some((url) => url.includes(ADMIN_KEY))).toBe(false);
    expect(problems).toEqual([]);
    // Only the sign-in with a wrong key was refused (its check, and perhaps the badge's poll), and the
    // denied restore's result (403 APPROVAL_DENIED).
    expect(failedResponses.length).toBeGreaterThan(0);
    for (const failure of failedResponses) {
      expect(failure).toMatch(/^401 .*\/v1\/approvals|^403 .*\/v1\/sessions\/[^/]+\/calls\//);
    }
  });
});
