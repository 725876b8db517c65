// The suite's own hygiene: tempDir's dirs go when their test file ends (test/setup-temp-dirs.ts), and
// the run's teardown (test/global-setup.ts) names whatever else a test left in the run's temp dir.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { leftoversIn } from './global-setup.js';
import { removeTempDirs, tempDir } from './helpers/app.js';

describe('temp dirs of the test run', () => {
  it('run in a temp dir of their own, made for this run', () => {
    expect(path.basename(tmpdir())).toMatch(/^toolgate-run-/);
  });

  it('the teardown names every leftover but the caches', () => {
    const dir = tempDir('toolgate-leftovers-');
    for (const name of ['toolgate-runtime', 'tsx-0', 'toolgate-config-abc', 'tg-search-x'])
      mkdirSync(path.join(dir, name));
    writeFileSync(path.join(dir, 'stray.txt'), '');
    expect(leftoversIn(dir)).toEqual(
      ['stray.txt', 'tg-search-x', 'toolgate-config-abc'].map((name) => path.join(dir, name)),
    );
  });

  it('tempDir dirs are removed when their file ends', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'f'), 'x');
    removeTempDirs();
    expect(existsSync(dir)).toBe(false);
  });
});
