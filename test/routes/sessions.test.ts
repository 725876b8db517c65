import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, injectApp, tempDir, type InjectApp } from '../helpers/app.js';

describe('sessions', () => {
  let t: InjectApp;
  beforeAll(async () => {
    t = await injectApp();
  });
  afterAll(() => t.close());

  it('creates a session with seed files, returns the token once, and never stores it in clear', async () => {
    const res = await t.admin(t.http.post('/v1/sessions')).send({
      profile: 'read-only',
      files: { 'README.md': '# hi\n', 'src/main.py': 'print(1)\n' },
      metadata: { agent: 'test' },
      ttlSeconds: 600,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      profile: 'read-only',
      permissions: ['read'],
      metadata: { agent: 'test' },
    });
    expect(res.body.categories).toContain('filesystem');
    expect(res.body.categories).not.toContain('edit');
    expect(res.body.token).toMatch(/^tgs_/);
    expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)).toBe(600_000);
    const read = await t.call(res.body, 'read_file', { path: 'src/main.py' });
    expect(read.body.data.content).toBe('print(1)');
    const got = await t.admin(t.http.get(`/v1/sessions/${res.body.id}`));
    expect(got.status).toBe(200);
    expect(got.body.token).toBeUndefined();
    const row = await t.app.services.db.get<{ token_hash: string }>(
      'SELECT token_hash FROM sessions WHERE id = ?',
      [res.body.id],
    );
    expect(row?.token_hash).not.toContain(res.body.token);
    expect(row?.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('defaults to the execute profile and reports the categories it allows', async () => {
    const s = await t.createSession();
    expect(s.profile).toBe('execute');
    expect(s.permissions).toEqual(['read', 'write', 'execute']);
  });

  it('narrows categories and excludes tools', async () => {
    const s = await t.createSession({
      profile: 'read-write',
      categories: ['filesystem'],
      excludeTools: ['list_directory'],
    });
    expect(s.categories).toEqual(['filesystem']);
    const write = await t.call(s, 'write_file', { path: 'a', content: 'x' });
    expect(write.status).toBe(403);
    expect(write.body.error.code).toBe('PERMISSION_DENIED');
    const list = await t.call(s, 'list_directory', {});
    expect(list.status).toBe(403);
    expect(list.body.error.message).toContain('excluded');
  });

  it('rejects unknown profiles, categories, tools and over-long TTLs with field errors', async () => {
    for (const body of [
      { profile: 'root' },
      { categories: ['nope'] },
      { excludeTools: ['rm_rf'] },
      { ttlSeconds: 10 ** 9 },
      { bogus: true },
      { files: { '../escape.txt': 'x' } },
    ]) {
      const res = await t.admin(t.http.post('/v1/sessions')).send(body);
      expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toMatch(/VALIDATION_FAILED|PATH_OUTSIDE_WORKSPACE/);
    }
  });

  it('a seed file outside the workspace leaves no session behind', async () => {
    const before = (await t.admin(t.http.get('/v1/sessions?limit=1000'))).body.sessions.length;
    const res = await t.admin(t.http.post('/v1/sessions')).send({ files: { 'ok.txt': 'x', '../../x': 'y' } });
    expect(res.status).toBe(403);
    const after = (await t.admin(t.http.get('/v1/sessions?limit=1000'))).body.sessions.length;
    expect(after).toBe(before);
  });

  it('lists sessions newest first with cursor pagination that neither skips nor repeats', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) ids.add((await t.createSession()).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: { sessions: { id: string }[]; nextCursor: string | null } } = await t.admin(
        t.http.get(`/v1/sessions?limit=2${cursor ? `&cursor=${cursor}` : ''}`),
      );
      seen.push(...res.body.sessions.map((s) => s.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of ids) expect(seen).toContain(id);
    const bad = await t.admin(t.http.get('/v1/sessions?cursor=garbage'));
    expect(bad.status).toBe(400);
  });

  it('a session token sees its own session, gets 404 for another, and cannot list or create', async () => {
    const a = await t.createSession();
    const b = await t.createSession();
    const own = await t.http.get(`/v1/sessions/${a.id}`).set('authorization', `Bearer ${a.token}`);
    expect(own.status).toBe(200);
    const other = await t.http.get(`/v1/sessions/${b.id}`).set('authorization', `Bearer ${a.token}`);
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('SESSION_NOT_FOUND');
    const call = await t.http
      .post(`/v1/sessions/${b.id}/tools/read_file`)
      .set('authorization', `Bearer ${a.token}`)
      .send({ path: 'x' });
    expect(call.status).toBe(404);
    const list = await t.http.get('/v1/sessions').set('authorization', `Bearer ${a.token}`);
    expect(list.status).toBe(403);
    expect(list.body.error.code).toBe('ADMIN_REQUIRED');
    const create = await t.http
      .post('/v1/sessions')
      .set('authorization', `Bearer ${a.token}`)
      .send({ profile: 'full' });
    expect(create.status).toBe(403);
  });

  it('deletes a session with its workspace; its token stops working', async () => {
    const s = await t.createSession({ files: { 'a.txt': 'a' } });
    const dir = t.app.services.workspaces.dirFor(s.id);
    expect(existsSync(path.join(dir, 'a.txt'))).toBe(true);
    // Used first: auth keeps the digest of a token that passed, which must not outlive its session.
    await t.call(s, 'read_file', { path: 'a.txt' }).expect(200);
    const del = await t.admin(t.http.delete(`/v1/sessions/${s.id}`));
    expect(del.status).toBe(204);
    expect(existsSync(dir)).toBe(false);
    const after = await t.call(s, 'read_file', { path: 'a.txt' });
    expect(after.status).toBe(401);
    const again = await t.admin(t.http.delete(`/v1/sessions/${s.id}`));
    expect(again.status).toBe(404);
  });

  it('workspaces are private directories', async () => {
    const s = await t.createSession();
    expect(statSync(t.app.services.workspaces.dirFor(s.id)).mode & 0o777).toBe(0o700);
  });

  it('sweeps expired sessions and their workspaces', async () => {
    const s = await t.createSession({ ttlSeconds: 1, files: { 'x.txt': 'x' } });
    const swept = await t.app.services.sweep(Date.now() + 2000);
    expect(swept.sessions).toBeGreaterThanOrEqual(1);
    expect(existsSync(t.app.services.workspaces.dirFor(s.id))).toBe(false);
    const res = await t.admin(t.http.get(`/v1/sessions/${s.id}`));
    expect(res.status).toBe(404);
  });
});

describe('persistence', () => {
  it('sessions, tokens, workspaces and audit survive an app restart on the same data dir', async () => {
    const dataDir = tempDir();
    const first = await injectApp({}, { dataDir });
    const s = await first.createSession({ files: { 'keep.txt': 'kept\n' } });
    await first.call(s, 'write_file', { path: 'more.txt', content: 'more' }).expect(200);
    await first.close({ keepData: true });

    const second = await injectApp({}, { dataDir });
    const read = await second.call(s, 'read_file', { path: 'keep.txt' });
    expect(read.status).toBe(200);
    expect(read.body.data.content).toBe('kept');
    const more = await second.call(s, 'read_file', { path: 'more.txt' });
    expect(more.body.data.content).toBe('more');
    const audit = await second.admin(second.http.get(`/v1/audit?sessionId=${s.id}`));
    expect(audit.body.entries.map((e: { tool: string }) => e.tool)).toEqual([
      'read_file',
      'read_file',
      'write_file',
    ]);
    await second.close();
  });

  it('generates an admin key into the data dir with mode 0600 when none is configured', async () => {
    const dataDir = tempDir();
    const t = await injectApp({ TOOLGATE_API_KEY: '' }, { dataDir });
    const file = path.join(dataDir, 'admin.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(t.app.services.adminKey.source).toBe('generated');
    const key = t.app.services.adminKey.key;
    expect(key).not.toBe(ADMIN_KEY);
    const res = await t.http.get('/v1/sessions').set('authorization', `Bearer ${key}`);
    expect(res.status).toBe(200);
    await t.close({ keepData: true });
    const again = await injectApp({ TOOLGATE_API_KEY: '' }, { dataDir });
    expect(again.app.services.adminKey).toMatchObject({ key, source: 'file' });
    await again.close();
  });
});
