// Headless Chromium for the console tests: Debian's /usr/bin/chromium (or TOOLGATE_CHROMIUM) driven by
// puppeteer-core, with a fresh profile in a temp dir and nothing that phones home. Tests skip without
// it: needs('chromium').
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { tempDir } from '../helpers/app.js';
import { CHROMIUM } from '../helpers/requires.js';

/** Screenshots of each page land here (git-ignored). */
export const ARTIFACTS = path.resolve(import.meta.dirname, '../../test-artifacts/console');

export async function launchChromium(): Promise<{ browser: Browser; close(): Promise<void> }> {
  const profile = tempDir('toolgate-chromium-');
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
    ],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
