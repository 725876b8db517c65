// The V4A corpus (test/fixtures/v4a/<case>/): every case's input files are put in a fresh workspace, its
// patch.txt goes through apply_patch's execute, and the workspace afterwards must hold exactly the
// expected/ files (for a refused patch: the input, untouched). case.json names the error or file results.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolContext, type ToolHarness } from '../../helpers/tool-context.js';

const CORPUS = path.resolve(import.meta.dirname, '../../fixtures/v4a');

interface CaseMeta {
  note: string;
  error?: { code: string; includes: string[] };
  files?: Record<string, unknown>[];
}

/** Every file under `dir`, relative, with its bytes as text (hidden entries are the service's). */
function tree(dir: string, base = dir): Record<string, string> {
  const out: Record<string, string> = {};
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    if (name.startsWith('.')) continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) Object.assign(out, tree(full, base));
    else out[path.relative(base, full)] = readFileSync(full, 'latin1');
  }
  return out;
}

const cases = readdirSync(CORPUS)
  .filter((name) => statSync(path.join(CORPUS, name)).isDirectory())
  .sort();

let t: ToolHarness;
beforeAll(async () => {
  t = await toolContext();
});
afterAll(() => t.close());

describe('V4A corpus through apply_patch', () => {
  it('has the cases the format needs', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  it.each(cases)('%s', async (name) => {
    const dir = path.join(CORPUS, name);
    const meta = JSON.parse(readFileSync(path.join(dir, 'case.json'), 'utf8')) as CaseMeta;
    const s = await t.session();
    const input = tree(path.join(dir, 'input'));
    for (const [rel, content] of Object.entries(input)) s.put(rel, Buffer.from(content, 'latin1'));
    const patch = readFileSync(path.join(dir, 'patch.txt'), 'utf8');
    const res = await s.attempt('apply_patch', { patch });
    if (meta.error) {
      expect(res.error?.code, meta.note).toBe(meta.error.code);
      for (const part of meta.error.includes)
        expect(`${res.error.message}\n${res.error.suggestion}`).toContain(part);
    } else {
      expect(res.error, meta.note).toBeUndefined();
      expect(res.data.format).toBe('v4a');
      if (meta.files) expect(res.data.files).toEqual(meta.files);
    }
    expect(tree(s.dir), meta.note).toEqual(tree(path.join(dir, 'expected')));
  });
});

describe('V4A patches and the edit history', () => {
  const patch = readFileSync(path.join(CORPUS, '29_multi_file_mixed/patch.txt'), 'utf8');
  const input = tree(path.join(CORPUS, '29_multi_file_mixed/input'));

  it('dry_run checks every file and writes nothing', async () => {
    const s = await t.session();
    for (const [rel, content] of Object.entries(input)) s.put(rel, content);
    const data = await s.run('apply_patch', { patch, dry_run: true });
    expect(data).toMatchObject({ dryRun: true, format: 'v4a' });
    expect(data.files.map((f: { status: string }) => f.status)).toEqual([
      'added',
      'deleted',
      'modified',
      'renamed',
    ]);
    expect(tree(s.dir)).toEqual(input);
  });

  it('is one undo_edit step: undoing it restores every file', async () => {
    const s = await t.session();
    for (const [rel, content] of Object.entries(input)) s.put(rel, content);
    await s.run('apply_patch', { patch });
    expect(tree(s.dir)).not.toEqual(input);
    const undone = await s.run('undo_edit', { path: 'src/a.ts' });
    expect(undone.undone).toBe('apply_patch');
    expect(tree(s.dir)).toEqual(input);
  });

  it('keeps unified diffs working next to V4A', async () => {
    const s = await t.session();
    s.put('u.txt', 'one\ntwo\n');
    const data = await s.run('apply_patch', {
      patch: '--- a/u.txt\n+++ b/u.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n',
    });
    expect(data.format).toBe('unified');
    expect(s.text('u.txt')).toBe('one\nTWO\n');
  });
});
