import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { CHILD_ADMIN_KEY, callTool, REPO_ROOT, startChildServer } from '../ops/child-server.js';

// Builds the production bundle exactly as the Dockerfile's build stage does — the same files copied, then
// `npm ci`, `npm run build`, `npm prune --omit=dev` — and starts it with the runtime stage's command and
// environment. npm ci compiles better-sqlite3 from source (2–3 min on 2 busy cores), so the test runs
// only when TOOLGATE_BUNDLE_TEST=1 (.ci/run sets it).
const enabled = process.env.TOOLGATE_BUNDLE_TEST === '1';
const title = enabled
  ? 'production bundle (as in the Dockerfile)'
  : 'production bundle (skipped: set TOOLGATE_BUNDLE_TEST=1 to run it; .ci/run does)';

const npm = (cwd: string, args: string[]) =>
  execFileSync('npm', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', timeout: 600_000 });

describe.skipIf(!enabled)(title, () => {
  it('builds with npm ci, build and prune, then serves /healthz, tool calls and the console from dist/', async () => {
    const appDir = tempDir('toolgate-bundle-');
    // COPY package.json package-lock.json ./ ; COPY tsconfig.json tsconfig.build.json ./ ; COPY src ./src
    for (const file of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json']) {
      cpSync(path.join(REPO_ROOT, file), path.join(appDir, file));
    }
    cpSync(path.join(REPO_ROOT, 'src'), path.join(appDir, 'src'), { recursive: true });
    // The local npm cache is warm, so only what it lacks comes from the registry; install scripts must run
    // (better-sqlite3's native build) whatever the user's npm config says.
    npm(appDir, ['ci', '--prefer-offline', '--ignore-scripts=false', '--no-audit', '--no-fund']);
    npm(appDir, ['run', 'build']);
    npm(appDir, ['prune', '--omit=dev']);
    // The runtime stage's COPY console ./console: the console's static files beside dist/.
    cpSync(path.join(REPO_ROOT, 'console'), path.join(appDir, 'console'), { recursive: true });
    expect(() =>
      execFileSync('node', ['-e', 'require.resolve("vitest")'], { cwd: appDir, stdio: 'ignore' }),
    ).toThrow();

    const dataDir = path.join(tempDir('toolgate-bundle-data-'), 'data');
    mkdirSync(dataDir);
    const server = await startChildServer({
      dataDir,
      cwd: appDir,
      command: ['node', 'dist/src/server.js'],
      env: { NODE_ENV: 'production', LOG_LEVEL: 'warn' },
    });
    try {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      const created = await fetch(`${server.url}/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${CHILD_ADMIN_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ profile: 'read-write' }),
      });
      expect(created.status).toBe(201);
      const session = (await created.json()) as { id: string; token: string };
      const write = await callTool(server.url, session, 'write_file', { path: 'hello.txt', content: 'hi\n' });
      expect(write.status).toBe(200);
      const read = await callTool(server.url, session, 'read_file', { path: 'hello.txt' });
      expect(((await read.json()) as { data: { content: string } }).data.content).toBe('hi');
      // The operator console, with uPlot resolved from the pruned node_modules.
      for (const asset of ['/console', '/console/assets/main.js', '/console/assets/uPlot.esm.js']) {
        const res = await fetch(`${server.url}${asset}`);
        expect(res.status, asset).toBe(200);
        expect(res.headers.get('content-security-policy'), asset).toContain("default-src 'self'");
      }
    } finally {
      server.proc.kill('SIGTERM');
    }
    expect((await server.exited).code).toBe(0);
  }, 900_000);
});
