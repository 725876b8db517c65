// Every file tool renders compact text for an LLM (served as `text` by the batch endpoint).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../../helpers/app.js';
import { fileSession, type FileSession } from '../workspace-helpers.js';

let t: InjectApp;
let s: FileSession;
beforeAll(async () => {
  t = await injectApp();
  s = await fileSession(t);
});
afterAll(() => t.close());

async function rendered(name: string, args: Record<string, unknown>): Promise<string> {
  const res = await t.http
    .post(`/v1/sessions/${s.id}/calls`)
    .set('authorization', `Bearer ${s.token}`)
    .send({ calls: [{ name, arguments: args }] });
  expect(res.status).toBe(200);
  expect(res.body.results[0].success).toBe(true);
  return res.body.results[0].text as string;
}

describe('LLM rendering of the file tools', () => {
  it('renders each tool as compact text', async () => {
    expect(await rendered('write_file', { path: 'r/a.ts', content: 'one\ntwo\n' })).toBe(
      'Created r/a.ts (8 bytes)',
    );
    expect(await rendered('read_file', { path: 'r/a.ts' })).toBe('1\tone\n2\ttwo');
    const edit = await rendered('edit_file', { path: 'r/a.ts', old_string: 'two', new_string: 'three' });
    expect(edit).toMatch(/^Edited r\/a\.ts: 1 replacement\n/);
    expect(edit).toContain('-two\n+three');
    const multi = await rendered('multi_edit', {
      path: 'r/a.ts',
      edits: [{ old_string: 'one', new_string: '1' }],
      dry_run: true,
    });
    expect(multi).toMatch(/^Would edit r\/a\.ts/);
    expect(await rendered('undo_edit', { path: 'r/a.ts' })).toMatch(
      /^Undid edit_file from .*: r\/a\.ts restored$/,
    );
    const patch = await rendered('apply_patch', {
      patch: '--- /dev/null\n+++ b/r/b.ts\n@@ -0,0 +1 @@\n+b\n',
    });
    expect(patch).toBe('Patched:\n  added    r/b.ts (+1 -0)');
    expect(await rendered('move_file', { source: 'r/b.ts', destination: 'r/c.ts' })).toBe(
      'Moved r/b.ts → r/c.ts',
    );
    expect(await rendered('create_directory', { path: 'r/d' })).toBe('Created r/d/');
    expect(await rendered('delete_file', { path: 'r/c.ts' })).toBe(
      'Deleted file r/c.ts (undo_edit restores it)',
    );
    expect(await rendered('glob', { pattern: '*.ts', path: 'r' })).toBe('r/a.ts');
    expect(await rendered('grep', { pattern: 'one', path: 'r' })).toBe('r/a.ts:1: one');
    expect(await rendered('grep', { pattern: 'zzz', path: 'r' })).toBe('No matches.');
    expect(await rendered('file_info', { path: 'r/a.ts' })).toMatch(
      /^r\/a\.ts: file, 8 bytes, 2 lines, LF, text\/x-typescript, modified .*, mode 0\d{3}, sha256 [0-9a-f]{64}$/,
    );
    expect(await rendered('list_directory', { path: 'r' })).toBe('r/\n  a.ts (8 B)\n  d/');
  });
});

describe('edit_file stays fast on pathological input', () => {
  it('answers "not found" for a big old_string against a big file of repeated braces, within the job deadline', async () => {
    const body = Array.from({ length: 5000 }, (_, i) => (i % 2 ? '}' : `  call${i}();`)).join('\n');
    s.put('r/braces.ts', `${body}\n`);
    const old = `}\n${Array.from({ length: 300 }, (_, i) => `  other${i}();`).join('\n')}\n}`;
    // This match runs in the CPU pool: booted first, so the job's deadline measures the match alone. A
    // pathological search would end 504 TIMEOUT at the deadline (limits.cpuJobMs); the fast one is a 422.
    await t.app.services.cpu.warm();
    const res = await s.call('edit_file', { path: 'r/braces.ts', old_string: old, new_string: 'x' });
    expect(res.body.error?.code).toBe('EDIT_NOT_FOUND');
    expect(res.status).toBe(422);
  });
});
