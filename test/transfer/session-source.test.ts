// Sessions that start from a source: an uploaded blob, an inline base64 archive, or a server template;
// bad sources are clear 4xx errors and leave no session behind.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, tempDir, type InjectApp } from '../helpers/app.js';
import { fingerprint, tarOf, zipOf } from './archive-helpers.js';

describe('sessions from a source', () => {
  let t: InjectApp;
  let templates: string;
  const liveSessions = async () => (await t.admin(t.http.get('/v1/sessions'))).body.sessions.length;

  beforeAll(async () => {
    templates = tempDir('toolgate-templates-');
    mkdirSync(path.join(templates, 'python-app', 'src'), { recursive: true });
    writeFileSync(path.join(templates, 'python-app', 'src', 'main.py'), 'print("template")\n', {
      mode: 0o755,
    });
    writeFileSync(path.join(templates, 'python-app', 'README.md'), '# template\n');
    symlinkSync('src/main.py', path.join(templates, 'python-app', 'main'));
    t = await injectApp({ TOOLGATE_TEMPLATES_DIR: templates });
  });
  afterAll(() => t.close());

  it('starts from an uploaded blob, as many sessions as wanted, with seed files on top', async () => {
    const archive = await zipOf([
      { name: 'app/index.js', content: 'console.log(1)\n' },
      { name: 'app/data.bin', content: Buffer.from([0, 1, 2, 255]) },
    ]);
    const blob = await t.admin(t.http.post('/v1/blobs')).set('content-type', 'application/zip').send(archive);
    expect(blob.status).toBe(201);
    expect(blob.body).toMatchObject({ id: expect.stringMatching(/^blob_/), size: archive.length });
    for (let i = 0; i < 2; i++) {
      const s = await t.createSession({ archive: blob.body.id, files: { 'notes.md': 'mine' } });
      expect((await t.call(s, 'read_file', { path: 'app/index.js' })).body.data.content).toBe(
        'console.log(1)',
      );
      expect((await t.call(s, 'read_file', { path: 'notes.md' })).body.data.content).toBe('mine');
    }
    expect((await t.admin(t.http.delete(`/v1/blobs/${blob.body.id}`))).status).toBe(204);
    const gone = await t.admin(t.http.post('/v1/sessions')).send({ archive: blob.body.id });
    expect(gone.status).toBe(404);
  });

  it('starts from an inline base64 tar.gz', async () => {
    const archive = await tarOf([{ name: 'a.txt', content: 'inline' }]);
    const s = await t.createSession({ archive_base64: archive.toString('base64') });
    expect((await t.call(s, 'read_file', { path: 'a.txt' })).body.data.content).toBe('inline');
  });

  it('copies a template in, with modes and symlinks', async () => {
    const s = await t.createSession({ template: 'python-app' });
    expect(fingerprint(path.join(t.dataDir, 'workspaces', s.id))).toBe(
      fingerprint(path.join(templates, 'python-app')),
    );
  });

  it('refuses bad sources with a clear 4xx and leaves no session behind', async () => {
    const before = await liveSessions();
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ template: 'nope' }, 404, 'NOT_FOUND'],
      [{ template: '../etc' }, 400, 'VALIDATION_FAILED'],
      [{ archive: 'blob_000000000000000000000000' }, 404, 'NOT_FOUND'],
      [{ archive_base64: 'not base64 at all!' }, 400, 'VALIDATION_FAILED'],
      [{ archive_base64: Buffer.from('plain text').toString('base64') }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [
        { archive_base64: (await tarOf([{ name: '../evil', content: 'x' }])).toString('base64') },
        422,
        'ARCHIVE_UNSAFE',
      ],
      [{ template: 'python-app', archive_base64: 'AAAA' }, 400, 'VALIDATION_FAILED'],
    ];
    for (const [body, status, code] of cases) {
      const res = await t.admin(t.http.post('/v1/sessions')).send(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      expect(res.body.error.code).toBe(code);
    }
    expect(await liveSessions()).toBe(before);
  });

  it('keeps blobs to the admin', async () => {
    const s = await t.createSession();
    const res = await t.http
      .post('/v1/blobs')
      .set('authorization', `Bearer ${s.token}`)
      .send(Buffer.from('x'));
    expect(res.status).toBe(403);
  });
});
