// Logs a person can read, and logs that keep no secret: a real server process, its log captured as a
// supervisor or a terminal would see it. Piped (a container, a collector): one JSON object a line, and a
// generated admin key never appears in it. On an interactive terminal (a pty from script(1)): readable
// pino-pretty lines, and the key shown once so the person who started it can copy it.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { REPO_ROOT, startChildServer, type ChildServer } from './child-server.js';

const hasScript = spawnSync('script', ['--version']).status === 0;

// eslint-disable-next-line no-control-regex
const plain = (line: string) => line.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r$/, '');

/** Waits until the collected output holds a line matching `pattern` (colours stripped). */
async function waitForLine(server: ChildServer, pattern: RegExp): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!server.logs.some((line) => pattern.test(plain(line)))) {
    if (Date.now() > deadline) throw new Error(`no line ${pattern} in:\n${server.logs.join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('logs', () => {
  let server: ChildServer | undefined;
  afterEach(async () => {
    server?.proc.kill('SIGKILL');
    await server?.exited;
    server = undefined;
  });

  it('piped: JSON lines, and a generated admin key never in them', async () => {
    const dataDir = tempDir('toolgate-logs-');
    server = await startChildServer({ dataDir, env: { TOOLGATE_API_KEY: '' } });
    const key = readFileSync(path.join(dataDir, 'admin.key'), 'utf8').trim();
    await fetch(`${server.url}/v1/sessions`, { headers: { authorization: `Bearer ${key}` } });
    await waitForLine(server, /"route":"\/v1\/sessions"/);
    expect(server.logs.join('\n')).not.toContain(key);
    expect(
      server.logs.some((line) => line.includes('generated an admin key') && line.includes(dataDir)),
    ).toBe(true);
    for (const line of server.logs) expect(() => JSON.parse(line), line).not.toThrow();
  }, 60_000);

  it.skipIf(!hasScript)(
    'on a terminal: readable lines, and the generated key shown once',
    async () => {
      const dataDir = tempDir('toolgate-logs-');
      // script(1) gives the server a pty as stdout and stderr, as a person's terminal would.
      server = await startChildServer({
        dataDir,
        env: { TOOLGATE_API_KEY: '' },
        command: ['script', '-qfec', `${process.execPath} --import tsx src/server.ts`, '/dev/null'],
        cwd: REPO_ROOT,
      });
      const key = readFileSync(path.join(dataDir, 'admin.key'), 'utf8').trim();
      await waitForLine(server, /your admin key/);
      // The key goes straight to stderr, the log line through pino-pretty's worker thread: either may
      // come first (on Node 22 the worker's line usually comes second).
      await waitForLine(server, /\bWARN\b.*generated an admin key/);
      const lines = server.logs.map(plain);
      const text = lines.join('\n');
      expect(text).toContain(`your admin key (shown once, here only): ${key}`);
      expect(text.split(key).length - 1).toBe(1);
      // pino-pretty's lines: a level word, not a JSON object.
      expect(server.logs.some((line) => /\bWARN\b.*generated an admin key/.test(line))).toBe(true);
      expect(server.logs.filter((line) => line.trimStart().startsWith('{"level"'))).toEqual([]);
    },
    60_000,
  );

  it('LOG_FORMAT=pretty when piped, for people who tail a file', async () => {
    server = await startChildServer({ dataDir: tempDir('toolgate-logs-'), env: { LOG_FORMAT: 'pretty' } });
    await fetch(`${server.url}/healthz`);
    await waitForLine(server, /\bINFO\b/);
    expect(server.logs.filter((line) => line.startsWith('{'))).toEqual([]);
  }, 60_000);
});
