import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { CHILD_ADMIN_KEY, callTool, freePort, REPO_ROOT, startChildServer } from '../ops/child-server.js';

// Builds the production bundle exactly as the Dockerfile's build stage does — the same files copied, then
// `npm ci`, `npm run build`, `npm prune --omit=dev`, and last docker/install-backends.sh with the image's
// backends — and starts it with the runtime stage's command and environment. Before the last step the tree
// is the production install of the default features: the optional backends' packages are not there, and
// choosing one must say which package and how to add it. npm ci compiles better-sqlite3 from source (2–3 min
// on 2 busy cores), so the test runs only when TOOLGATE_BUNDLE_TEST=1 (.ci/run sets it).
const enabled = process.env.TOOLGATE_BUNDLE_TEST === '1';
const title = enabled
  ? 'production bundle (as in the Dockerfile)'
  : 'production bundle (skipped: set TOOLGATE_BUNDLE_TEST=1 to run it; .ci/run does)';

const npm = (cwd: string, args: string[]) =>
  execFileSync('npm', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', timeout: 1_200_000 });

/** What `npm prune --omit=dev` must leave out: development tools, the bundler, and the optional backends. */
const LEFT_OUT = [
  'vitest',
  'esbuild',
  'tsx',
  'typescript',
  'dockerode',
  '@kubernetes/client-node',
  'pg',
  'pyright',
  'typescript-language-server',
];

describe.skipIf(!enabled)(title, () => {
  let appDir = '';
  // In memory where there is /dev/shm (as the install test): a clean install writes some 30,000 files,
  // which took over 10 minutes on a busy shared disk here.
  afterAll(() => {
    if (appDir.startsWith('/dev/shm/')) rmSync(appDir, { recursive: true, force: true });
  }, 120_000);
  beforeAll(() => {
    appDir = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/toolgate-bundle-') : tempDir('toolgate-bundle-');
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
  }, 2_400_000);

  /** Starts dist/ with `env` added and waits for it to stop (a start that fails stops at once). */
  const failedStart = async (env: Record<string, string>) => {
    const dataDir = path.join(tempDir('toolgate-bundle-data-'), 'data');
    const result = spawnSync('node', ['dist/src/server.js'], {
      cwd: appDir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        TOOLGATE_DATA_DIR: dataDir,
        TOOLGATE_API_KEY: CHILD_ADMIN_KEY,
        NODE_ENV: 'production',
        LOG_LEVEL: 'warn',
        ...env,
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { status: result.status, lines: result.stderr.trim().split('\n') };
  };

  it('the production install leaves out the development tools, esbuild, tsx and the optional backends', () => {
    for (const name of LEFT_OUT) {
      expect(existsSync(path.join(appDir, 'node_modules', name)), name).toBe(false);
    }
    // What dist/ loads is there: the prebuilt runtime bundle (so no esbuild), the SQLite driver.
    expect(existsSync(path.join(appDir, 'dist/src/runtime/runtime.cjs'))).toBe(true);
    expect(existsSync(path.join(appDir, 'node_modules/better-sqlite3-napi'))).toBe(true);
  });

  it.each([
    ['docker', { TOOLGATE_SANDBOX: 'docker' }, 'dockerode@^5.0.1'],
    ['kubernetes', { TOOLGATE_SANDBOX: 'kubernetes' }, '@kubernetes/client-node@~1.4.0'],
    ['PostgreSQL', { DATABASE_URL: 'postgres://toolgate@127.0.0.1:1/toolgate' }, 'pg@^8.23.1'],
  ])(
    'choosing the %s backend without its package stops the start with one line naming it',
    async (_, env, spec) => {
      const { status, lines } = await failedStart(env);
      expect(status).toBe(1);
      expect(lines, lines.join('\n')).toHaveLength(1);
      const name = spec.slice(0, spec.lastIndexOf('@'));
      expect(lines[0]).toMatch(
        new RegExp(`^toolgate: failed to start: .* needs ${name}, which is not installed`),
      );
      expect(lines[0]).toContain(`add it with: npm install --omit=dev --save-prod ${spec}`);
    },
    90_000,
  );

  it('serves /healthz, tool calls and the console from dist/; the code tools name the missing language servers', async () => {
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
        body: JSON.stringify({
          profile: 'read-write',
          files: { 'app.ts': 'export const n: number = "x";\n', 'app.py': 'n: int = "x"\n' },
        }),
      });
      expect(created.status).toBe(201);
      const session = (await created.json()) as { id: string; token: string };
      const write = await callTool(server.url, session, 'write_file', { path: 'hello.txt', content: 'hi\n' });
      expect(write.status).toBe(200);
      const read = await callTool(server.url, session, 'read_file', { path: 'hello.txt' });
      expect(((await read.json()) as { data: { content: string } }).data.content).toBe('hi');
      // The language servers are optional packages: the error envelope names each and the command.
      for (const [file, command] of [
        ['app.ts', 'npm install --omit=dev --save-prod typescript-language-server@~5.3.0 typescript@5.9'],
        ['app.py', 'npm install --omit=dev --save-prod pyright@^1.1.414'],
      ]) {
        const res = await callTool(server.url, session, 'diagnostics', { path: file });
        const body = (await res.json()) as { error: { code: string; message: string } };
        expect(res.status, file).toBe(422);
        expect(body.error.code).toBe('UNSUPPORTED_LANGUAGE');
        expect(body.error.message).toContain(`not installed`);
        expect(body.error.message).toContain(command);
      }
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
  }, 300_000);

  it("the Dockerfile's backend step (install-backends.sh with the image's default, pg) adds the driver and nothing else", async () => {
    const dockerfile = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
    const packages = /^ARG BACKEND_PACKAGES="([^"]*)"/m.exec(dockerfile)?.[1].split(/\s+/).filter(Boolean);
    expect(packages).toEqual(['pg']);
    mkdirSync(path.join(appDir, 'docker'));
    cpSync(
      path.join(REPO_ROOT, 'docker/install-backends.sh'),
      path.join(appDir, 'docker/install-backends.sh'),
    );
    // From the warm npm cache where it has them, as the other installs here.
    execFileSync('sh', ['docker/install-backends.sh', ...packages!], {
      cwd: appDir,
      env: { ...process.env, npm_config_prefer_offline: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 300_000,
    });
    expect(existsSync(path.join(appDir, 'node_modules/pg'))).toBe(true);
    for (const name of LEFT_OUT.filter((n) => n !== 'pg')) {
      expect(existsSync(path.join(appDir, 'node_modules', name)), name).toBe(false);
    }
    // The start now reaches the driver: the error is the unreachable server, no longer a missing package.
    const { status, lines } = await failedStart({ DATABASE_URL: 'postgres://toolgate@127.0.0.1:1/toolgate' });
    expect(status).toBe(1);
    expect(lines, lines.join('\n')).toHaveLength(1);
    expect(lines[0]).not.toContain('not installed');
    expect(lines[0]).toContain('127.0.0.1:1');
  }, 360_000);
});
