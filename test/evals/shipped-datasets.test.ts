// The datasets we ship (evals/) run through the real app, every case in its own session: the built-in
// tools' behaviour (and the example tool folders') as data. A case that fails here is a regression of
// the tool, or a dataset that no longer tells the truth; either way the failure prints expected vs actual.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDatasetFile, type Dataset } from '../../src/evals/dataset.js';
import { runEvals } from '../../src/evals/runner.js';
import { shippedDatasetFiles } from '../../src/evals/shipped.js';
import { injectTransport } from '../../src/evals/transport.js';
import { DEFAULT_VARIANT } from '../../src/evals/variant.js';
import { ADMIN_KEY, injectApp, type InjectApp } from '../helpers/app.js';

const pinsRipgrep = (input: unknown): boolean =>
  typeof input === 'object' && input !== null && (input as { engine?: unknown }).engine === 'ripgrep';

const EXAMPLE_TOOLS = path.resolve(import.meta.dirname, '../../examples/tools');

let t: InjectApp;
let datasets: Dataset[];
beforeAll(async () => {
  t = await injectApp({ TOOLGATE_TOOLS_DIR: EXAMPLE_TOOLS });
  datasets = await Promise.all(
    [...(await shippedDatasetFiles()).values()].map((file) => loadDatasetFile(file)),
  );
});
afterAll(() => t.close());

describe('the shipped eval datasets', () => {
  it('cover the edit cascade, apply_patch, read_file, grep/glob, run_command and each example tool folder', () => {
    const tools = new Set(datasets.flatMap((d) => d.cases.map((c) => c.tool ?? c.calls?.at(-1)?.tool)));
    for (const tool of [
      'edit_file',
      'multi_edit',
      'apply_patch',
      'read_file',
      'grep',
      'glob',
      'run_command',
    ]) {
      expect(tools, tool).toContain(tool);
    }
    expect(tools).toContain('count_files');
    expect(tools).toContain('count_words');
  });

  it('never pin the ripgrep engine: they pass on a machine with only Node (rg missing), as README promises', () => {
    const pinned = datasets.flatMap((d) =>
      d.cases
        .filter((c) => [c.input, ...(c.calls ?? []).map((call) => call.input)].some(pinsRipgrep))
        .map((c) => `${d.name}/${c.name}`),
    );
    expect(pinned).toEqual([]);
  });

  it('pass, every case, and leave no session behind', async () => {
    const report = await runEvals(
      datasets,
      [{ variant: DEFAULT_VARIANT, transport: injectTransport(t.app), adminToken: ADMIN_KEY }],
      { concurrency: 4 },
    );
    const [result] = report.variants;
    const failures = result.failures.map(
      (f) =>
        `${f.id}\n${f.mismatches.map((m) => `  ${m.what}: expected ${JSON.stringify(m.expected)}, got ${JSON.stringify(m.actual)}`).join('\n')}`,
    );
    expect(failures.join('\n')).toBe('');
    expect(result.total).toBeGreaterThan(100);
    expect(await t.app.services.sessions.countActive()).toBe(0);
    // Over a hundred sessions, each with its runtime: about 25 s alone on 2 cores, more beside the rest
    // of the suite (it ran out of the default 30 s there).
  }, 120_000);
});
