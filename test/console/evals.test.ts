// The console's Evals page in headless Chromium against the real app: start a run of a shipped dataset
// from the page and see its table per tool; a progress bar while a run is running; a failure's expected
// vs actual as a diff. No console error (a CSP violation would be one). Skips when Chromium is missing.
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';
import { needs } from '../helpers/requires.js';
import { ARTIFACTS, launchChromium } from './browser.js';

const title = 'console Evals page';

describe.skipIf(needs('chromium', `the ${title}`))(title, { timeout: 45_000 }, () => {
  let t: TestApp;
  let base: string;
  let chromium: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    t = await startApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    chromium = await launchChromium();
    page = await chromium.browser.newPage();
    page.setDefaultTimeout(20_000);
    await page.setViewport({ width: 1280, height: 900 });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    await page.goto(`${base}/console#/evals`, { waitUntil: 'networkidle0' });
    await page.type('#admin-key', ADMIN_KEY);
    await page.click('#sign-in-form button');
  });
  afterAll(async () => {
    await chromium?.close();
    await t?.close();
  });

  const shot = (name: string) =>
    page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

  it('starts a run of a shipped dataset and shows its table per tool', async () => {
    await page.waitForSelector('#eval-datasets input[value="apply-patch"]');
    await page.click('#eval-datasets input[value="apply-patch"]');
    await page.click('#eval-start button[type="submit"]');
    await page.waitForSelector('table.eval-tools tr[data-tool="apply_patch"]');
    const row = await page.$eval('table.eval-tools tr[data-tool="apply_patch"]', (tr) =>
      [...tr.querySelectorAll('td')].map((td) => td.textContent),
    );
    expect(row.slice(0, 3)).toEqual(['apply_patch', '7/7', '100.0%']);
    await shot('evals-run');
    await page.evaluate(() => (location.hash = '#/evals'));
    await page.waitForSelector('#eval-runs tr[data-run] progress');
  });

  it('shows a progress bar while a run is running, and a failure as a diff', async () => {
    const slow = [1, 2].map((n) => ({
      name: `slow ${n}`,
      tool: 'run_command',
      input: { command: 'sleep 0.6' },
    }));
    const wrong = {
      name: 'wrong content',
      tool: 'write_file',
      input: { path: 'a.txt', content: 'one\ntwo\nthree\n' },
      expect: { files: { 'a.txt': 'one\nTWO\nthree\n' } },
    };
    const res = await t
      .admin(t.http.post('/v1/evals'))
      .send({ cases: [...slow, wrong], concurrency: 1 })
      .expect(202);
    await page.evaluate((id) => (location.hash = `#/evals/${id}`), res.body.id);
    await page.waitForSelector('#eval-run-head .pill-running');
    expect(await page.$eval('#eval-run-head progress', (p) => (p as HTMLProgressElement).max)).toBe(3);
    await shot('evals-running');
    await page.waitForSelector('details.eval-failure');
    await page.click('details.eval-failure summary');
    const diff = await page.$eval('details.eval-failure pre.diff', (pre) => ({
      removed: [...pre.querySelectorAll('span.del')].map((s) => s.textContent),
      added: [...pre.querySelectorAll('span.add')].map((s) => s.textContent),
    }));
    expect(diff).toEqual({ removed: ['- TWO\n'], added: ['+ two\n'] });
    await shot('evals-failure');
    expect(problems).toEqual([]);
  });
});
