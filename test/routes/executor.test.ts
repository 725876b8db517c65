// The executor features: validate without running, dry_run on every side-effecting built-in (nothing
// changes on disk, checked by hashing the workspace), retries of retryable tools with backoff (audited),
// and bytesRead / bytesWritten / filesAccessed in every result's metadata.
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolgateError } from '../../src/lib/errors.js';
import { defineTool } from '../../src/contract/tool.js';
import { BUILTIN_TOOLS } from '../../src/tools/index.js';
import type { InjectApp } from '../helpers/app.js';
import { hashWorkspace } from '../helpers/workspace-hash.js';
import { writeConfigFile } from '../ops/with-config.js';
import { injectApp } from '../helpers/app.js';

// Fails with a transient error until it has been called `failures` times for the same label.
const seen = new Map<string, number>();
const flaky = (name: string, retryable: boolean) =>
  defineTool({
    name,
    category: 'testing',
    description: `Test tool: fails transiently the first times (${name}).`,
    capabilities: { readsFiles: true },
    retryable,
    input: Type.Object({ label: Type.String(), failures: Type.Integer({ minimum: 0 }) }),
    output: Type.Object({ calls: Type.Integer() }),
    async execute(input) {
      const calls = (seen.get(input.label) ?? 0) + 1;
      seen.set(input.label, calls);
      if (calls <= input.failures) throw toolgateError('STORAGE_UNAVAILABLE', 'storage is busy');
      return { calls };
    },
  });

describe('executor features', () => {
  let t: InjectApp;
  beforeAll(async () => {
    t = await injectApp(
      { TOOLGATE_CONFIG: writeConfigFile({ policy: { retryAttempts: 3, retryBaseDelayMs: 20 } }) },
      { tools: [...BUILTIN_TOOLS, flaky('flaky_retryable', true), flaky('flaky_plain', false)] },
    );
  });
  afterAll(() => t.close());

  const files = { 'a.txt': 'alpha\n', 'dir/b.txt': 'beta\n', 'empty/.keep': '' };

  it('validate checks schema and permissions, applies defaults, and runs nothing', async () => {
    const session = await t.createSession({ profile: 'read-write', files });
    const before = hashWorkspace(t, session.id);
    const validate = (tool: string, body: unknown, token = session.token, id = session.id) =>
      t.http
        .post(`/v1/sessions/${id}/tools/${tool}/validate`)
        .set('authorization', `Bearer ${token}`)
        .send(body as object);

    const ok = await validate('delete_file', { path: 'a.txt' });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({
      success: true,
      valid: true,
      tool: 'delete_file',
      category: 'edit',
      input: { path: 'a.txt', recursive: false, dry_run: false },
      permissions: ['read', 'write'],
    });
    const bad = await validate('write_file', { path: 3 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
    expect((await validate('nope_tool', {})).body.error.code).toBe('TOOL_NOT_FOUND');

    const readOnly = await t.createSession({ profile: 'read-only' });
    const denied = await validate('write_file', { path: 'x', content: '' }, readOnly.token, readOnly.id);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('PERMISSION_DENIED');

    expect(hashWorkspace(t, session.id)).toBe(before);
    const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${session.id}`));
    expect(audit.body.entries).toEqual([]);
  });

  it('dry_run on every side-effecting built-in reports what it would do and changes nothing', async () => {
    const session = await t.createSession({ profile: 'read-write', files });
    // A real change first, so undo_edit has something to (not) undo.
    expect((await t.call(session, 'write_file', { path: 'new.txt', content: 'new\n' })).status).toBe(200);
    const before = hashWorkspace(t, session.id);
    const cases: Array<[string, object, object]> = [
      [
        'write_file',
        { path: 'a.txt', content: 'changed\n' },
        { path: 'a.txt', created: false, bytesWritten: 8 },
      ],
      ['write_file', { path: 'c/new.txt', content: 'x' }, { path: 'c/new.txt', created: true }],
      ['delete_file', { path: 'dir', recursive: true }, { path: 'dir', deleted: false, type: 'directory' }],
      [
        'move_file',
        { source: 'a.txt', destination: 'z/a.txt' },
        { destination: 'z/a.txt', overwritten: false },
      ],
      ['create_directory', { path: 'made/deep' }, { path: 'made/deep', created: true }],
      ['create_directory', { path: 'empty' }, { path: 'empty', created: false }],
      [
        'undo_edit',
        { path: 'new.txt' },
        { undone: 'write_file', restored: [{ path: 'new.txt', action: 'removed' }] },
      ],
      ['edit_file', { path: 'a.txt', old_string: 'alpha', new_string: 'omega' }, { replacements: 1 }],
    ];
    for (const [tool, input, expected] of cases) {
      const res = await t.call(session, tool, { ...input, dry_run: true });
      expect(res.status, `${tool} ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.data).toMatchObject({ ...expected, dryRun: true });
      expect(res.body.metadata.bytesWritten, tool).toBe(0);
    }
    // The checks still run: a dry run that would fail fails the same way.
    const missing = await t.call(session, 'delete_file', { path: 'nope.txt', dry_run: true });
    expect(missing.body.error.code).toBe('FILE_NOT_FOUND');
    const notEmpty = await t.call(session, 'delete_file', { path: 'dir', dry_run: true });
    expect(notEmpty.body.error.code).toBe('DIRECTORY_NOT_EMPTY');
    expect(hashWorkspace(t, session.id)).toBe(before);
    // …and the undo is still there to be made for real.
    const undo = await t.call(session, 'undo_edit', { path: 'new.txt' });
    expect(undo.body.data).toMatchObject({ dryRun: false, restored: [{ action: 'removed' }] });
  });

  it('retries a retryable tool on transient errors with backoff, and audits the attempts', async () => {
    const session = await t.createSession();
    const started = performance.now();
    const res = await t.call(session, 'flaky_retryable', { label: 'r1', failures: 2 });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ calls: 3 });
    expect(res.body.metadata.attempts).toBe(3);
    // 20 ms, then 40 ms of backoff.
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);

    const exhausted = await t.call(session, 'flaky_retryable', { label: 'r2', failures: 5 });
    expect(exhausted.status).toBe(503);
    const plain = await t.call(session, 'flaky_plain', { label: 'p1', failures: 1 });
    expect(plain.status).toBe(503);
    expect(seen.get('p1')).toBe(1);

    const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${session.id}`));
    const attempts = Object.fromEntries(
      audit.body.entries.map((e: { inputSummary: string; attempts: number }) => [e.inputSummary, e.attempts]),
    );
    expect(Object.values(attempts).sort()).toEqual([1, 3, 3]);
  });

  it('reports bytesRead, bytesWritten and filesAccessed in the metadata', async () => {
    const session = await t.createSession({ profile: 'read-write', files });
    const read = await t.call(session, 'read_file', { path: 'a.txt' });
    expect(read.body.metadata).toMatchObject({ bytesRead: 6, bytesWritten: 0, filesAccessed: 1 });
    const write = await t.call(session, 'write_file', { path: 'w.txt', content: 'hello' });
    expect(write.body.metadata).toMatchObject({ bytesWritten: 5, filesAccessed: 1 });
    const move = await t.call(session, 'move_file', { source: 'w.txt', destination: 'v.txt' });
    expect(move.body.metadata.filesAccessed).toBe(2);
  });
});
