// The eval CLI tells a broken dataset from failing cases: exit 2 with one line naming the file, the line
// and the field (no stack trace), exit 1 when a case fails. Runs scripts/eval.ts as a process, the way CI
// does, on datasets written to a temp dir.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

async function evalCli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/eval.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'silent' },
    timeout: 120_000,
  });
  try {
    const { stdout, stderr } = await run;
    return { code: 0, stdout, stderr };
  } catch (err) {
    const { code, stdout, stderr } = err as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

function dataset(name: string, text: string): string {
  const file = path.join(tempDir('toolgate-eval-cli-'), name);
  writeFileSync(file, text);
  return file;
}

const oneLine = (stderr: string) => stderr.trim().split('\n');

describe('npm run eval', () => {
  it('exits 2 with one line for a bad JSONL line, a schema violation and a missing file', async () => {
    const badLine = dataset('bad.jsonl', '{"name":"a","tool":"read_file"}\n{"name":"b",\n');
    const schema = dataset('schema.yaml', '- name: a\n  tool: read_file\n  expect:\n    stauts: 200\n');
    const missing = path.join(path.dirname(schema), 'missing.yaml');
    for (const [file, line] of [
      [
        badLine,
        `eval: Dataset ${badLine}, line 2: cannot be read as JSON: Expected double-quoted property name`,
      ],
      [schema, `eval: Dataset ${schema}, line 4, case 1 (a): /expect/stauts: unknown field`],
      [missing, `eval: Dataset ${missing}: no such file or folder`],
    ]) {
      const run = await evalCli(file);
      expect({ code: run.code, stderr: oneLine(run.stderr) }).toEqual({ code: 2, stderr: [line] });
    }
  }, 240_000);

  it('exits 2 for a tool the service does not have, naming the line and the field', async () => {
    const file = dataset('unknown.yaml', '- name: a\n  tool: read_file\n- name: b\n  tool: no_such_tool\n');
    const run = await evalCli(file);
    expect({ code: run.code, stderr: oneLine(run.stderr) }).toEqual({
      code: 2,
      stderr: [`eval: Dataset ${file}, line 4 (b): /tool: no tool "no_such_tool" on the target`],
    });
  }, 120_000);

  it('exits 1 when a case fails, and 0 when every case passes', async () => {
    const failing = dataset(
      'fail.yaml',
      '- name: a\n  tool: read_file\n  input: {path: nope}\n  expect: {status: 200}\n',
    );
    expect((await evalCli(failing)).code).toBe(1);
    const passing = dataset(
      'pass.yaml',
      '- name: a\n  tool: read_file\n  input: {path: nope}\n  expect: {status: 404}\n',
    );
    expect((await evalCli(passing)).code).toBe(0);
  }, 240_000);

  it('exits 2 for a --variants file that is not JSON, naming its line', async () => {
    const cases = dataset('pass.yaml', '- name: a\n  tool: read_file\n  input: {path: a}\n');
    const variants = dataset('variants.json', '[\n  {"name": "v1"},\n  {"name": }\n]\n');
    const run = await evalCli(cases, '--variants', variants);
    expect(run.code).toBe(2);
    expect(oneLine(run.stderr)).toEqual([
      `eval: --variants ${variants}, line 3: cannot be read as JSON: Unexpected token '}'`,
    ]);
  }, 120_000);
});
