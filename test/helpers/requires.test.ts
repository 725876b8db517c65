// The suite on a machine without the optional pieces: needs() skips with one line that names what is
// missing and how to get it, and TOOLGATE_TEST_REQUIRE_ALL=1 (.ci/run) turns that skip into a failure.
// Each case runs in a fresh Node process, whose probes see the environment it is given.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

const probe = (code: string, env: Record<string, string>) => {
  const script = `const { needs, has } = await import('./test/helpers/requires.ts');\n${code}`;
  const { TOOLGATE_TEST_REQUIRE_ALL: _ignored, ...inherited } = process.env;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: REPO_ROOT,
    env: { ...inherited, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return {
    status: result.status,
    stdout: result.stdout.trim(),
    stderrLines: result.stderr.trim().split('\n'),
  };
};

describe('needs()', () => {
  it('skips without Chromium, printing one line that names it and how to get it', () => {
    const res = probe("console.log(needs('chromium', 'the console tests'))", {
      TOOLGATE_CHROMIUM: '/nonexistent/chromium',
    });
    expect(res.status).toBe(0);
    expect(res.stdout).toBe('true');
    expect(res.stderrLines).toEqual([
      'skipped the console tests: needs Chromium (/nonexistent/chromium) (apt-get install chromium, or TOOLGATE_CHROMIUM=<path to a Chromium>)',
    ]);
  });

  it('skips without ripgrep on the PATH', () => {
    const res = probe("console.log(needs(['ripgrep'], 'the ripgrep engine'))", { PATH: '/nonexistent' });
    expect(res.stdout).toBe('true');
    expect(res.stderrLines).toEqual([
      'skipped the ripgrep engine: needs ripgrep (rg) (apt-get install ripgrep)',
    ]);
  });

  it('fails instead under TOOLGATE_TEST_REQUIRE_ALL=1, as .ci/run sets it', () => {
    const res = probe("needs('chromium', 'the console tests')", {
      TOOLGATE_CHROMIUM: '/nonexistent/chromium',
      TOOLGATE_TEST_REQUIRE_ALL: '1',
    });
    expect(res.status).not.toBe(0);
    expect(res.stderrLines.join('\n')).toContain(
      'TOOLGATE_TEST_REQUIRE_ALL=1: skipped the console tests: needs Chromium (/nonexistent/chromium)',
    );
  });

  it('runs, silently, what this machine has', () => {
    const res = probe("console.log(needs('root', 'x'), has('root'))", {});
    const root = process.getuid?.() === 0;
    expect(res.stdout).toBe(`${!root} ${root}`);
    if (root) expect(res.stderrLines).toEqual(['']);
  });
});
