import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../helpers/app.js';
import { injectAppWithConfig } from '../ops/with-config.js';

// The quota is a config-file setting; the test writes a real config file into its temp dir.
describe('workspace quota (limits.workspaceMaxBytes)', () => {
  let t: InjectApp;
  beforeAll(async () => {
    t = await injectAppWithConfig({ limits: { workspaceMaxBytes: 1000 } });
  });
  afterAll(() => t.close());

  it('lets write_file fill the workspace up to the quota and refuses the write past it with 507', async () => {
    const session = await t.createSession({ profile: 'read-write' });
    expect((await t.call(session, 'write_file', { path: 'a.txt', content: 'a'.repeat(600) })).status).toBe(
      200,
    );
    expect((await t.call(session, 'write_file', { path: 'b.txt', content: 'b'.repeat(400) })).status).toBe(
      200,
    );
    const over = await t.call(session, 'write_file', { path: 'c.txt', content: 'c' });
    expect(over.status).toBe(507);
    expect(over.body.error).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      details: { usedBytes: 1000, limitBytes: 1000, growthBytes: 1 },
    });
    expect(over.body.error.suggestion).toMatch(/delete_file/);
    // The refused file was not created.
    expect((await t.call(session, 'read_file', { path: 'c.txt' })).status).toBe(404);
  });

  it('counts only the growth when a file is replaced, and always allows shrinking', async () => {
    const session = await t.createSession({ profile: 'read-write' });
    expect((await t.call(session, 'write_file', { path: 'big.txt', content: 'x'.repeat(900) })).status).toBe(
      200,
    );
    // 900 → 1000 bytes: +100 fits exactly.
    expect((await t.call(session, 'write_file', { path: 'big.txt', content: 'y'.repeat(1000) })).status).toBe(
      200,
    );
    expect((await t.call(session, 'write_file', { path: 'big.txt', content: 'z'.repeat(1001) })).status).toBe(
      507,
    );
    expect((await t.call(session, 'write_file', { path: 'big.txt', content: 'small' })).status).toBe(200);
    expect(
      (await t.call(session, 'write_file', { path: 'other.txt', content: 'o'.repeat(995) })).status,
    ).toBe(200);
  });

  it('keeps workspaces apart: one session filling its quota does not limit another', async () => {
    const first = await t.createSession({ profile: 'read-write' });
    const second = await t.createSession({ profile: 'read-write' });
    expect((await t.call(first, 'write_file', { path: 'f.txt', content: 'f'.repeat(1000) })).status).toBe(
      200,
    );
    expect((await t.call(second, 'write_file', { path: 'f.txt', content: 'g'.repeat(1000) })).status).toBe(
      200,
    );
  });
});

describe('workspace quota off (the default)', () => {
  let t: InjectApp;
  beforeAll(async () => {
    t = await injectApp();
  });
  afterAll(() => t.close());

  it('does not limit writes when workspaceMaxBytes is 0', async () => {
    const session = await t.createSession({ profile: 'read-write' });
    for (const name of ['a', 'b', 'c']) {
      const res = await t.call(session, 'write_file', { path: `${name}.txt`, content: 'x'.repeat(200_000) });
      expect(res.status).toBe(200);
    }
  });
});
