// The eval runner on small inline datasets: that an expectation that does not hold fails its case with
// expected vs actual (each kind), that a bad dataset is refused naming the case and field, and the
// report's A/B differences, regressions/fixes against a previous report, and JUnit XML.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDataset } from '../../src/evals/dataset.js';
import { junitXml } from '../../src/evals/junit.js';
import { runEvals, type EvalTarget } from '../../src/evals/runner.js';
import { injectTransport } from '../../src/evals/transport.js';
import { isToolgateError } from '../../src/lib/errors.js';
import { ADMIN_KEY, injectApp, type InjectApp } from '../helpers/app.js';
import { tarOf } from '../transfer/archive-helpers.js';

let t: InjectApp;
let target: EvalTarget;
beforeAll(async () => {
  t = await injectApp();
  target = { variant: { name: 'default' }, transport: injectTransport(t.app), adminToken: ADMIN_KEY };
});
afterAll(() => t.close());

const FILES = { 'a.txt': 'alpha\nbeta\n' };
// Every case is wrong in exactly one way; `what` is the mismatch it must report.
const WRONG = [
  { what: 'read_file outcome', case: { tool: 'read_file', input: { path: 'nope' } } },
  {
    what: 'read_file error code',
    case: { tool: 'read_file', input: { path: 'nope' }, expect: { code: 'X' } },
  },
  {
    what: 'read_file status',
    case: { tool: 'read_file', input: { path: 'a.txt' }, expect: { status: 201 } },
  },
  {
    what: 'read_file data/totalLines',
    case: { tool: 'read_file', input: { path: 'a.txt' }, expect: { data: { totalLines: 3 } } },
  },
  {
    what: 'read_file data $.content',
    case: {
      tool: 'read_file',
      input: { path: 'a.txt' },
      expect: { paths: [{ path: '$.content', matches: '^beta' }] },
    },
  },
  {
    what: 'read_file text',
    case: { tool: 'read_file', via: 'anthropic', input: { path: 'a.txt' }, expect: { text: 'gamma' } },
  },
  {
    what: 'run_command stdout',
    case: { tool: 'run_command', input: { command: 'echo hi' }, expect: { stdout: '^ho' } },
  },
  {
    what: 'file a.txt',
    case: { tool: 'read_file', input: { path: 'a.txt' }, expect: { files: { 'a.txt': 'other' } } },
  },
  {
    what: 'file a.txt',
    case: { tool: 'read_file', input: { path: 'a.txt' }, expect: { files: { 'a.txt': null } } },
  },
  {
    what: 'file b.txt',
    case: { tool: 'read_file', input: { path: 'a.txt' }, expect: { files: { 'b.txt': { contains: 'x' } } } },
  },
  {
    what: 'file a.txt sha256',
    case: {
      tool: 'read_file',
      input: { path: 'a.txt' },
      expect: { files: { 'a.txt': { sha256: '0'.repeat(64) } } },
    },
  },
  {
    what: 'call 1 (write_file) outcome',
    case: {
      calls: [
        { tool: 'write_file', input: { path: '../x', content: '' } },
        { tool: 'read_file', input: { path: 'x' } },
      ],
    },
  },
  {
    what: 'read_file duration (ms)',
    case: { tool: 'run_command', input: { command: 'sleep 0.2' }, expect: { maxDurationMs: 1 } },
  },
];

describe('the eval runner', () => {
  it('fails a case whose expectation does not hold, saying what, expected and actual', async () => {
    const cases = WRONG.map((w, i) => ({ name: `wrong ${i}`, files: FILES, ...w.case }));
    const passing = {
      name: 'right',
      tool: 'read_file',
      files: FILES,
      input: { path: 'a.txt' },
      expect: { data: { content: 'alpha\nbeta' }, files: { 'a.txt': 'alpha\nbeta\n', 'b.txt': null } },
    };
    const dataset = parseDataset('d', JSON.stringify([...cases, passing]), 'json');
    const report = await runEvals([dataset], [target], { concurrency: 4 });
    const [variant] = report.variants;
    expect(variant.cases.find((c) => c.id === 'd/right')?.passed).toBe(true);
    const failures = new Map(variant.failures.map((f) => [f.id, f.mismatches]));
    WRONG.forEach((w, i) => {
      const mismatches = failures.get(`d/wrong ${i}`);
      const what = w.what.replace('read_file duration', 'run_command duration');
      expect(
        mismatches?.map((m) => m.what),
        `case ${i}`,
      ).toContain(what);
    });
    expect(failures.get('d/wrong 1')).toContainEqual({
      what: 'read_file error code',
      expected: 'X',
      actual: 'FILE_NOT_FOUND',
    });
    expect(variant.passRate).toBeCloseTo(1 / (WRONG.length + 1), 2);
    expect(await t.app.services.sessions.countActive()).toBe(0);
    const xml = junitXml(report);
    expect(xml).toContain('<testcase classname="read_file" name="d/right"');
    expect(xml).toContain('<failure message="read_file error code">');
  });

  it('compares two variants side by side and a run with the one before it', async () => {
    const dataset = parseDataset(
      'ab',
      '{"name":"edit","tool":"edit_file","files":{"a":"x\\n"},"input":{"path":"a","old_string":"x","new_string":"y"}}\n',
      'jsonl',
    );
    const without = { ...target, variant: { name: 'no-edit', session: { excludeTools: ['edit_file'] } } };
    const ab = await runEvals([dataset], [target, without]);
    expect(ab.variants.map((v) => [v.name, v.passed])).toEqual([
      ['default', 1],
      ['no-edit', 0],
    ]);
    expect(ab.differences).toEqual([
      { id: 'ab/edit', tool: 'edit_file', passed: { default: true, 'no-edit': false } },
    ]);
    // The same variant name failing now is a regression; passing again, a fix.
    const worse = await runEvals(
      [dataset],
      [{ ...without, variant: { ...without.variant, name: 'default' } }],
      { previous: ab },
    );
    expect(worse.comparison).toMatchObject({ regressions: [{ id: 'ab/edit' }], fixes: [], removed: 1 });
    const better = await runEvals([dataset], [target], { previous: worse });
    expect(better.comparison).toMatchObject({ regressions: [], fixes: [{ id: 'ab/edit' }] });
  });

  it('starts the workspace of a case from an archive, with seed files on top', async () => {
    const archive = (await tarOf([{ name: 'src/a.txt', content: 'from the archive\n' }])).toString('base64');
    const dataset = parseDataset(
      'archive',
      JSON.stringify([
        {
          name: 'archive and seed',
          tool: 'grep',
          session: { archive_base64: archive },
          files: { 'src/b.txt': 'from a seed file\n' },
          input: { pattern: 'from', output_mode: 'files_with_matches' },
          expect: { data: { files: ['src/a.txt', 'src/b.txt'] } },
        },
      ]),
      'json',
    );
    const report = await runEvals([dataset], [target]);
    expect(report.variants[0].failures).toEqual([]);
    expect(report.variants[0].passed).toBe(1);
  });

  it('refuses a dataset that is not one, naming the case and the field', () => {
    const bad = (text: string, format: 'jsonl' | 'yaml' = 'jsonl') => {
      try {
        parseDataset('d', text, format);
      } catch (err) {
        return `${isToolgateError(err) ? err.code : 'not a ToolgateError'} ${(err as Error).message}`;
      }
      return 'accepted';
    };
    expect(bad('{"name":"a","tool":"x","expect":{"stauts":200}}')).toMatch(
      /VALIDATION_FAILED .*line 1 \(a\): \/expect\/stauts: unknown field/,
    );
    expect(bad('{"name":"a"}')).toMatch(/needs "tool"/);
    expect(bad('{"name":"a","tool":"x"}\n{"name":"a","tool":"y"}')).toMatch(
      /line 2 \(a\): \/name: the name is used twice/,
    );
    expect(bad('{oops')).toMatch(/cannot be read/);
    expect(bad('- name: a\n  tool: x\n  via: telnet\n', 'yaml')).toMatch(/case 1 \(a\): \/via/);
  });
});
