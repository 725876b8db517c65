// Sessions cloned from git: a file:// repository under a listed root and a git daemon on 127.0.0.1,
// a ref checked out, hosts not listed refused before anything runs, and a failed clone leaving no session.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, tempDir, type InjectApp } from '../helpers/app.js';
import { needs } from '../helpers/requires.js';

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

describe.skipIf(needs('git', 'the sessions-from-git tests'))('sessions from git', () => {
  let t: InjectApp;
  let repos: string;
  let daemon: ChildProcess;
  let port: number;
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
      cwd,
      stdio: 'pipe',
    });
  const liveSessions = async () => (await t.admin(t.http.get('/v1/sessions'))).body.sessions.length;

  beforeAll(async () => {
    repos = tempDir('toolgate-repos-');
    const repo = path.join(repos, 'project');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(repo, 'app.py'), 'version = 1\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'one');
    git(repo, 'tag', 'v1');
    writeFileSync(path.join(repo, 'app.py'), 'version = 2\n');
    git(repo, 'commit', '-q', '-am', 'two');
    port = await freePort();
    daemon = spawn(
      'git',
      [
        'daemon',
        '--reuseaddr',
        '--export-all',
        `--base-path=${repos}`,
        '--listen=127.0.0.1',
        `--port=${port}`,
        repos,
      ],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 50; i++) {
      const up = await new Promise<boolean>((resolve) => {
        const socket = createServer()
          .listen(port, '127.0.0.1', () => socket.close(() => resolve(false)))
          .on('error', () => resolve(true));
      });
      if (up) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const config = path.join(tempDir('toolgate-config-'), 'config.json');
    writeFileSync(
      config,
      JSON.stringify({ git: { allowedHosts: [`file://${repos}`, `127.0.0.1:${port}`], timeoutSeconds: 30 } }),
    );
    t = await injectApp({ TOOLGATE_CONFIG: config });
  });
  afterAll(async () => {
    daemon?.kill();
    await t.close();
  });

  const read = async (s: { id: string; token: string }, file: string) =>
    (await t.call(s, 'read_file', { path: file })).body.data?.content;

  it('clones a file:// repository under a listed root, at HEAD or at a ref', async () => {
    const head = await t.createSession({ git: { url: `file://${repos}/project` } });
    expect(await read(head, 'app.py')).toBe('version = 2');
    const tagged = await t.createSession({ git: { url: `file://${repos}/project`, ref: 'v1' } });
    expect(await read(tagged, 'app.py')).toBe('version = 1');
  });

  it('clones from a git daemon on 127.0.0.1', async () => {
    const s = await t.createSession({ git: { url: `git://127.0.0.1:${port}/project` } });
    expect(await read(s, 'app.py')).toBe('version = 2');
    // The session's own runtime still has no network: the clone had it for that step only.
    const probe = await t.call(s, 'run_command', {
      command: `git ls-remote git://127.0.0.1:${port}/project`,
    });
    if (t.app.services.runtimes.backend.isolated) expect(probe.body.data.exitCode).not.toBe(0);
  });

  it('refuses hosts and paths the operator did not list, and failed clones, leaving no session', async () => {
    const before = await liveSessions();
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ git: { url: 'https://example.com/repo.git' } }, 403, 'SOURCE_NOT_ALLOWED'],
      [{ git: { url: `git://127.0.0.1:${port + 1}/project` } }, 403, 'SOURCE_NOT_ALLOWED'],
      [{ git: { url: 'file:///etc' } }, 403, 'SOURCE_NOT_ALLOWED'],
      [{ git: { url: `file://${repos}/../etc` } }, 403, 'SOURCE_NOT_ALLOWED'],
      [{ git: { url: 'ssh://127.0.0.1/repo' } }, 400, 'VALIDATION_FAILED'],
      [{ git: { url: `file://${repos}/missing` } }, 422, 'SOURCE_FAILED'],
      [{ git: { url: `file://${repos}/project`, ref: 'no-such-ref' } }, 422, 'SOURCE_FAILED'],
    ];
    for (const [body, status, code] of cases) {
      const res = await t.admin(t.http.post('/v1/sessions')).send(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error.code).toBe(code);
    }
    expect(await liveSessions()).toBe(before);
  });
});
