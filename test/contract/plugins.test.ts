import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { injectApp } from '../helpers/app.js';

const fixtures = path.resolve('test/fixtures/plugins');

describe('plugins from TOOLGATE_PLUGINS_DIR', () => {
  it('registers a plugin tool in its own category, with a route, audit and the same pipeline', async () => {
    const t = await injectApp({ TOOLGATE_PLUGINS_DIR: path.join(fixtures, 'good') });
    try {
      const s = await t.createSession({ profile: 'read-only' });
      expect(s.categories).toContain('text');
      const res = await t.call(s, 'word_count', { text: 'one two  three' });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ words: 3 });
      const bad = await t.call(s, 'word_count', { text: 5 });
      expect(bad.status).toBe(400);
      const tool = await t.admin(t.http.get('/v1/tools/word_count'));
      expect(tool.body).toMatchObject({ category: 'text', source: 'plugin word_count.mjs' });
      const audit = await t.admin(t.http.get(`/v1/audit?sessionId=${s.id}`));
      expect(audit.body.entries).toHaveLength(2);
    } finally {
      await t.close();
    }
  });

  it('a plugin that throws stops the start with a message naming it', async () => {
    await expect(injectApp({ TOOLGATE_PLUGINS_DIR: path.join(fixtures, 'broken') })).rejects.toThrow(
      /plugin bad\.mjs: factory threw: cannot start/,
    );
  });

  it('a module exporting no tool stops the start with a message naming it', async () => {
    await expect(injectApp({ TOOLGATE_PLUGINS_DIR: path.join(fixtures, 'empty') })).rejects.toThrow(
      /plugin nothing\.mjs: exports no tool/,
    );
  });

  it('a missing plugins directory stops the start', async () => {
    await expect(injectApp({ TOOLGATE_PLUGINS_DIR: path.join(fixtures, 'missing') })).rejects.toThrow(
      /cannot read the plugins directory/,
    );
  });
});
