import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { REPO_ROOT } from './child-server.js';

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');

/** The instructions of a Dockerfile, continuation lines joined. */
function dockerInstructions(text: string): { op: string; args: string }[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [op, ...rest] = line.split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(' ') };
    });
}

describe('container files', () => {
  it('the example config validates against the config schema, with the container env', () => {
    const config = loadConfig({
      TOOLGATE_CONFIG: path.join(REPO_ROOT, 'docker/config.example.json'),
      HOST: '0.0.0.0',
      TOOLGATE_DATA_DIR: '/data',
    });
    expect(config.host).toBe('0.0.0.0');
    expect(config.dataDir).toBe('/data');
    expect(config.limits.workspaceMaxBytes).toBeGreaterThan(0);
    expect(config.sessions.idleTtlSeconds).toBeGreaterThan(0);
    expect(config.rateLimits['*']).toBeDefined();
  });

  it('the Dockerfile builds with npm ci, build and prune, and runs node dist/src/server.js as a non-root user', () => {
    const steps = dockerInstructions(read('Dockerfile'));
    const runs = steps.filter((s) => s.op === 'RUN').map((s) => s.args);
    expect(runs.some((r) => /^npm ci\b/.test(r))).toBe(true);
    expect(runs.some((r) => r.includes('npm run build') && r.includes('npm prune --omit=dev'))).toBe(true);
    expect(runs.some((r) => r.includes('ripgrep') && r.includes('bubblewrap'))).toBe(true);
    expect(steps.filter((s) => s.op === 'FROM').length).toBe(2);
    expect(steps.find((s) => s.op === 'CMD')?.args).toBe('["node", "dist/src/server.js"]');
    const user = steps.filter((s) => s.op === 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)$/);
    const env = steps
      .filter((s) => s.op === 'ENV')
      .map((s) => s.args)
      .join(' ');
    expect(env).toMatch(/HOST=0\.0\.0\.0/);
    expect(env).toMatch(/TOOLGATE_DATA_DIR=\/data/);
    expect(steps.some((s) => s.op === 'VOLUME' && s.args.includes('/data'))).toBe(true);
    expect(steps.find((s) => s.op === 'HEALTHCHECK')?.args).toContain('/healthz');
  });

  it('the image adds the optional backends BACKEND_PACKAGES names, after the prune, each an optional package', () => {
    const steps = dockerInstructions(read('Dockerfile'));
    const arg = steps.find((s) => s.op === 'ARG' && s.args.startsWith('BACKEND_PACKAGES='))?.args ?? '';
    const names = /^BACKEND_PACKAGES="([^"]*)"$/.exec(arg)?.[1].split(/\s+/).filter(Boolean) ?? [];
    const { peerDependencies } = JSON.parse(read('package.json')) as {
      peerDependencies: Record<string, string>;
    };
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(peerDependencies[name], name).toBeDefined();
    const runs = steps.filter((s) => s.op === 'RUN').map((s) => s.args);
    const prune = runs.findIndex((r) => r.includes('npm prune --omit=dev'));
    const add = runs.findIndex((r) => r.includes('sh docker/install-backends.sh ${BACKEND_PACKAGES}'));
    expect(prune).toBeGreaterThanOrEqual(0);
    expect(add).toBeGreaterThan(prune);
  });

  it('install-backends.sh refuses a name that is not an optional package, before npm runs', () => {
    const script = path.join(REPO_ROOT, 'docker/install-backends.sh');
    execFileSync('sh', ['-n', script]);
    const refused = spawnSync('sh', [script, 'pg', 'left-pad'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(refused.status).toBe(2);
    expect(refused.stderr.trim()).toMatch(/^left-pad is not an optional package of toolgate \(.*dockerode/);
  });

  it('the build stage needs no compiler: it installs none, on a Node line that loads the prebuilt driver', () => {
    const steps = dockerInstructions(read('Dockerfile'));
    const runtimeFrom = steps.findIndex((s, i) => s.op === 'FROM' && i > 0 && / AS runtime$/i.test(s.args));
    const buildRuns = steps.slice(0, runtimeFrom).filter((s) => s.op === 'RUN');
    for (const run of buildRuns) expect(run.args).not.toMatch(/\b(g\+\+|gcc|make|python3|build-essential)\b/);
    // Node 22 and later load better-sqlite3 13 from its prebuilt binaries (src/store/sqlite-driver.ts).
    const image = steps.find((s) => s.op === 'ARG' && s.args.startsWith('NODE_IMAGE='))?.args ?? '';
    expect(Number(/^NODE_IMAGE=node:(\d+)/.exec(image)?.[1])).toBeGreaterThanOrEqual(22);
  });

  it('the entrypoint is a valid shell script that refuses an unwritable data directory', () => {
    const script = path.join(REPO_ROOT, 'docker/entrypoint.sh');
    execFileSync('sh', ['-n', script]);
    const refused = spawnSync('sh', [script, 'true'], {
      env: { PATH: process.env.PATH, TOOLGATE_DATA_DIR: '/nonexistent/toolgate-data' },
      encoding: 'utf8',
    });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('not writable');
    const passed = spawnSync('sh', [script, 'echo', 'started'], {
      env: { PATH: process.env.PATH, TOOLGATE_DATA_DIR: '/tmp' },
      encoding: 'utf8',
    });
    expect(passed.stdout.trim()).toBe('started');
  });
});

const compose = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' });
const composeMissing = compose.status === 0 ? '' : ' (skipped: this docker client has no "compose" command)';

describe.skipIf(compose.status !== 0)(`docker compose config${composeMissing}`, () => {
  it('parses docker-compose.yml', () => {
    const out = execFileSync(
      'docker',
      ['compose', '-f', path.join(REPO_ROOT, 'docker-compose.yml'), 'config'],
      {
        encoding: 'utf8',
        env: { ...process.env, TOOLGATE_API_KEY: 'x' },
      },
    );
    expect(out).toContain('toolgate-data');
  });
});
