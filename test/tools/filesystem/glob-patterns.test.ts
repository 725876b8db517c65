import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, type InjectApp } from '../../helpers/app.js';

// Found by the fuzz test: "/" stripped to an empty pattern made fast-glob throw (a 500).
describe('glob with degenerate patterns', () => {
  let t: InjectApp;
  let s: { id: string; token: string };
  beforeAll(async () => {
    t = await injectApp();
    s = await t.createSession({ profile: 'read-only', files: { 'a.txt': 'a', 'src/b.ts': 'b' } });
  });
  afterAll(() => t.close());

  it('"/" and "//" mean every file', async () => {
    for (const pattern of ['/', '//']) {
      const res = await t.call(s, 'glob', { pattern });
      expect(res.status).toBe(200);
      expect([...res.body.data.files].sort()).toEqual(['a.txt', 'src/b.ts']);
    }
  });

  it('odd patterns are answered, never a 500', async () => {
    for (const pattern of ['{', '[', '!', '/**/*', '***', '\\', '{a,{b,{c}}}', '!(a)']) {
      const res = await t.call(s, 'glob', { pattern });
      expect(res.status, pattern).toBeLessThan(500);
    }
    const up = await t.call(s, 'glob', { pattern: '../*' });
    expect(up.status).toBe(400);
  });
});
