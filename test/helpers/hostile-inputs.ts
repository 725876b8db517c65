// Valid inputs that cost a call seconds of CPU (issue 38), shared by the tests that prove such a call
// ends with TIMEOUT or a *_TOO_LARGE error without stalling anyone else, and by `npm run bench --
// neighbours`. Each one still defeats the cheap bounds in the matchers; only the CPU pool's deadline
// stops it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** 20,000 identical lines: every window of the file looks like every other. */
export const REPETITIVE_FILE = `${Array.from({ length: 20_000 }, () => 'x = 1;').join('\n')}\n`;

/**
 * A 500-line old_string indented differently from the file, whose last line is indented unlike the
 * rest: every window's trimmed lines match, so the indentation rule dedents all 20,000 windows (seconds).
 */
export const FUZZY_OLD_STRING = [...Array.from({ length: 499 }, () => '\tx = 1;'), '\t\t\tx = 1;'].join('\n');

/** A file of distinct lines for the V4A patch below. */
export const NUMBERED_FILE = `${Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join('\n')}\n`;

/**
 * A V4A update whose chunk matches nowhere and ends in 2,000 blank context lines: the placer retries
 * without each trailing blank line in turn, scanning the whole file each time (seconds).
 */
export const PATHOLOGICAL_V4A = [
  '*** Begin Patch',
  '*** Update File: numbered.txt',
  '@@',
  ' nothing like it',
  ...Array.from({ length: 2_000 }, () => ' '),
  '+added',
  '*** End Patch',
].join('\n');

/** `bytes` of valid, deeply repetitive HTML: linkedom, Readability and Turndown take seconds per MiB. */
export function bigHtml(bytes: number): string {
  const unit = '<div><p>word word, word.</p><a href="/x">l</a></div>';
  return `<html><head><title>big</title></head><body>${unit.repeat(Math.ceil(bytes / unit.length))}</body></html>`;
}

/** A loopback HTTP server answering every GET with `html`; web_fetch reaches it with 127.0.0.1/32 opened. */
export async function htmlServer(html: string): Promise<{ url: string; close: () => Promise<void> }> {
  const body = Buffer.from(html);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/page.html`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
