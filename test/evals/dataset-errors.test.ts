// Every kind of bad dataset is refused with one line naming the file, the line and the field: JSONL
// lines count from the file's start (not JSON.parse's position within the line), YAML and JSON cases
// are found in the file, a missing file says so.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDatasetFile } from '../../src/evals/dataset.js';
import { isToolgateError } from '../../src/lib/errors.js';
import { tempDir } from '../helpers/app.js';

async function refusal(name: string, text?: string) {
  const file = path.join(tempDir('toolgate-dataset-'), name);
  if (text !== undefined) writeFileSync(file, text);
  try {
    await loadDatasetFile(file);
    return { message: 'accepted', file };
  } catch (err) {
    if (!isToolgateError(err)) throw err;
    return { code: err.code, message: err.message, details: err.details, file };
  }
}

const GOOD = '{"name":"ok","tool":"read_file","input":{"path":"a"}}';

describe('a dataset that is not one', () => {
  it('JSONL: a bad line is named by its line in the file, without a position from the line start', async () => {
    const r = await refusal('d.jsonl', `${GOOD}\n\n# a comment\n{"name":"b","tool":"read_file",\n`);
    expect(r.message).toBe(
      `Dataset ${r.file}, line 4: cannot be read as JSON: Expected double-quoted property name`,
    );
    expect(r).toMatchObject({ code: 'VALIDATION_FAILED', details: { line: 4 } });
  });

  it('JSONL: a schema violation names the line, the case and the field', async () => {
    const r = await refusal('d.jsonl', `${GOOD}\n{"name":"b","tool":"x","expect":{"status":"teapot"}}\n`);
    expect(r.message).toBe(`Dataset ${r.file}, line 2 (b): /expect/status: must be integer`);
    expect(r.details).toEqual({ dataset: r.file, line: 2, field: '/expect/status' });
  });

  it('JSON: a syntax error names the line of the offset JSON.parse reports', async () => {
    const r = await refusal('d.json', `[\n  ${GOOD},\n  {"name": "b" "tool": "x"}\n]\n`);
    expect(r.message).toMatch(new RegExp(`^Dataset ${r.file}, line 3: cannot be read as JSON: Expected`));
  });

  it('JSON: a text that ends too early names its last line', async () => {
    const r = await refusal('d.json', `[\n  ${GOOD},\n`);
    expect(r.message).toBe(`Dataset ${r.file}, line 2: cannot be read as JSON: Unexpected end of JSON input`);
  });

  it('JSON: a schema violation names the line of the field', async () => {
    const r = await refusal(
      'd.json',
      `[\n  ${GOOD},\n  {\n    "name": "b",\n    "tool": "x",\n    "via": "telnet"\n  }\n]\n`,
    );
    expect(r.message).toMatch(new RegExp(`^Dataset ${r.file}, line 6, case 2 \\(b\\): /via: `));
  });

  it('YAML: a syntax error names its line, on one line', async () => {
    const r = await refusal('d.yaml', '- name: a\n  tool: x\n  via: [\n');
    expect(r.message).toMatch(new RegExp(`^Dataset ${r.file}, line 4: cannot be read as YAML: [^\\n]+$`));
  });

  it('YAML: an unknown field names its line, the case and the field', async () => {
    const r = await refusal(
      'd.yaml',
      '- name: a\n  tool: read_file\n- name: b\n  tool: read_file\n  expect:\n    status: 200\n    stauts: 200\n',
    );
    expect(r.message).toBe(`Dataset ${r.file}, line 7, case 2 (b): /expect/stauts: unknown field`);
  });

  it('YAML: a case without a tool, a name used twice, a document that is not a list', async () => {
    expect((await refusal('d.yaml', '- name: a\n- name: b\n')).message).toMatch(
      /line 1, case 1 \(a\): a case needs "tool"/,
    );
    expect((await refusal('d.yaml', '- {name: a, tool: x}\n- {name: a, tool: y}\n')).message).toMatch(
      /line 2, case 2 \(a\): \/name: the name is used twice/,
    );
    expect((await refusal('d.yaml', 'just: a map\n')).message).toMatch(/expected a list of cases/);
  });

  it('a missing file, and a file that is not a dataset by its name', async () => {
    const missing = await refusal('nope.yaml');
    expect(missing.message).toBe(`Dataset ${missing.file}: no such file`);
    expect((await refusal('d.txt', GOOD)).message).toMatch(
      /: not a dataset file \(\.jsonl, \.yaml, \.yml or \.json\)$/,
    );
  });
});
