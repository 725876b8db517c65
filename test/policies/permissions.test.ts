import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleFor } from '../../src/contract/example.js';
import { requiredPermissions } from '../../src/contract/tool.js';
import { injectApp, type InjectApp } from '../helpers/app.js';

const PROFILES: Record<string, string[]> = {
  'read-only': ['read'],
  'read-write': ['read', 'write'],
  execute: ['read', 'write', 'execute'],
  full: ['read', 'write', 'execute', 'network'],
};

describe('each profile against each category', () => {
  let t: InjectApp;
  beforeAll(async () => {
    t = await injectApp({ TOOLGATE_SANDBOX: 'none' });
  });
  afterAll(() => t.close());

  for (const [profile, permissions] of Object.entries(PROFILES)) {
    it(`${profile}: lists exactly the tools its permissions allow and refuses the rest with 403 + audit`, async () => {
      const s = await t.createSession({ profile });
      const listed = await t.http.get('/v1/tools').set('authorization', `Bearer ${s.token}`);
      const names = new Set(listed.body.tools.map((tool: { name: string }) => tool.name));
      const refusedTools: string[] = [];
      for (const { tool } of t.app.services.registry.list()) {
        const allowed = requiredPermissions(tool.capabilities).every((p) => permissions.includes(p));
        expect(names.has(tool.name), `${profile} / ${tool.category} / ${tool.name}`).toBe(allowed);
        if (!allowed) refusedTools.push(tool.name);
      }
      // One refused call per category, through the real route.
      const byCategory = new Map<string, string>();
      for (const name of refusedTools) {
        const category = t.app.services.registry.get(name)!.tool.category;
        if (!byCategory.has(category)) byCategory.set(category, name);
      }
      for (const name of byCategory.values()) {
        const tool = t.app.services.registry.get(name)!.tool;
        const input = tool.examples?.[0] ?? exampleFor(tool.input as Record<string, unknown>);
        const res = await t.call(s, name, input);
        expect(res.status, `${profile} calling ${name}`).toBe(403);
        expect(res.body.error.code).toBe('PERMISSION_DENIED');
      }
      const refused = await t.admin(t.http.get(`/v1/audit?sessionId=${s.id}&status=refused`));
      expect(refused.body.entries.length).toBe(byCategory.size);
    });
  }

  it('a write tool refused for a read-only session names the missing permission', async () => {
    const s = await t.createSession({ profile: 'read-only' });
    const res = await t.call(s, 'write_file', { path: 'a', content: 'b' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({
      type: 'permission_error',
      details: { missingPermission: 'write' },
    });
  });

  it('the admin key lists every tool', async () => {
    const res = await t.admin(t.http.get('/v1/tools'));
    expect(res.body.tools.length).toBe(t.app.services.registry.list().length);
  });
});
