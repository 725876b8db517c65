// Archives in and out: a tree survives tar.gz and zip round trips byte-identical (with modes and
// symlinks), .gitignore'd files can be left out, and the attack corpus is refused with a clear error and
// the workspace left exactly as it was.
import { randomBytes } from 'node:crypto';
import { readdirSync, writeFileSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectApp, tempDir, type InjectApp } from '../helpers/app.js';
import { asBytes } from '../helpers/bytes.js';
import { fingerprint, patchBytes, storedZipOf, tarOf, zipOf } from './archive-helpers.js';

type Session = { id: string; token: string };

describe('archives', () => {
  let t: InjectApp;
  const workspaceDir = (s: Session) => path.join(t.dataDir, 'workspaces', s.id);
  const extract = (s: Session, body: Buffer, target = '.') =>
    t.http
      .post(`/v1/sessions/${s.id}/archive?path=${encodeURIComponent(target)}`)
      .set('authorization', `Bearer ${s.token}`)
      .set('content-type', 'text/plain')
      .send(body);
  const download = (s: Session, query: string) =>
    asBytes(t.http.get(`/v1/sessions/${s.id}/archive?${query}`).set('authorization', `Bearer ${s.token}`));

  beforeAll(async () => {
    const dir = tempDir('toolgate-config-');
    const configFile = path.join(dir, 'config.json');
    // A low ratio floor so the bombs below stay small, and an entry cap that 100k entries pass quickly.
    writeFileSync(
      configFile,
      JSON.stringify({ archive: { ratioFloorBytes: 1024 * 1024, maxRatio: 100, maxEntries: 10_000 } }),
    );
    t = await injectApp({ TOOLGATE_CONFIG: configFile });
  });
  afterAll(() => t.close());

  const seeded = async () => {
    const s = await t.createSession({ files: { 'README.md': '# hi\n', 'src/main.py': 'print(1)\n' } });
    const put = (p: string, bytes: Buffer) =>
      t.http.put(`/v1/sessions/${s.id}/files/${p}`).set('authorization', `Bearer ${s.token}`).send(bytes);
    await put('assets/logo.png', randomBytes(300_000));
    await put('empty/.keep', Buffer.alloc(0));
    await put('bin/tool.whl', randomBytes(2_000_000));
    await t.call(s, 'run_command', {
      command: 'chmod 755 src/main.py && ln -s ../README.md src/readme-link && mkdir -p deep/a/b/c',
    });
    return s;
  };

  for (const format of ['tar.gz', 'zip'] as const) {
    it(`round-trips a tree through ${format} byte-identical, with modes and symlinks`, async () => {
      const source = await seeded();
      const archive = await download(source, `format=${format}`);
      expect(archive.status).toBe(200);
      expect(archive.headers['content-type']).toBe(format === 'zip' ? 'application/zip' : 'application/gzip');
      const target = await t.createSession();
      const res = await extract(target, archive.body as Buffer);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ path: '.', format, symlinks: 1 });
      expect(fingerprint(workspaceDir(target))).toBe(fingerprint(workspaceDir(source)));
    });
  }

  it('extracts a plain tar into a subdirectory, merging with what is there', async () => {
    const s = await t.createSession({ files: { 'vendor/keep.txt': 'kept' } });
    const res = await extract(
      s,
      await tarOf(
        [
          { name: 'lib/x.txt', content: 'x' },
          { name: 'y.txt', content: 'y' },
        ],
        false,
      ),
      'vendor',
    );
    expect(res.body).toMatchObject({ path: 'vendor', format: 'tar', files: 2 });
    const read = await t.call(s, 'read_file', { path: 'vendor/lib/x.txt' });
    expect(read.body.data.content).toBe('x');
    expect((await t.call(s, 'read_file', { path: 'vendor/keep.txt' })).body.data.content).toBe('kept');
  });

  it('leaves out .gitignored files and .git when asked', async () => {
    const s = await t.createSession({
      files: {
        '.gitignore': '*.log\nbuild/\n',
        'a.txt': 'a',
        'debug.log': 'x',
        'build/out.js': 'x',
        '.git/HEAD': 'ref',
      },
    });
    const target = await t.createSession();
    const all = await download(s, 'format=zip');
    await extract(target, all.body as Buffer, 'all');
    const some = await download(s, 'format=tar.gz&gitignore=true');
    await extract(target, some.body as Buffer, 'some');
    // Listed from the disk: glob itself would leave the ignored files out.
    const list = (dir: string) =>
      (
        readdirSync(path.join(workspaceDir(target), dir), {
          recursive: true,
          withFileTypes: true,
        }) as Dirent[]
      )
        .filter((e) => e.isFile())
        .map((e) => path.relative(workspaceDir(target), path.join(e.parentPath, e.name)))
        .sort();
    expect(list('all')).toEqual([
      'all/.git/HEAD',
      'all/.gitignore',
      'all/a.txt',
      'all/build/out.js',
      'all/debug.log',
    ]);
    expect(list('some')).toEqual(['some/.gitignore', 'some/a.txt']);
  });

  it('refuses a body that is no archive (415) and a damaged one (400)', async () => {
    const s = await t.createSession();
    const before = fingerprint(workspaceDir(s));
    const junk = await extract(s, Buffer.from('just some text, not an archive at all'));
    expect(junk.status).toBe(415);
    const good = await tarOf([{ name: 'a.txt', content: 'a'.repeat(10_000) }]);
    const damaged = await extract(s, good.subarray(0, good.length - 30));
    expect(damaged.status).toBe(400);
    expect(damaged.body.error.code).toBe('ARCHIVE_INVALID');
    expect(fingerprint(workspaceDir(s))).toBe(before);
  });

  describe('the attack corpus: refused, nothing written', () => {
    const corpus: Array<[string, () => Promise<Buffer>, string, RegExp]> = [
      [
        'a tar zip-slip name',
        () =>
          tarOf([
            { name: 'ok.txt', content: 'ok' },
            { name: '../evil.txt', content: 'x' },
          ]),
        'ARCHIVE_UNSAFE',
        /climbs out/,
      ],
      [
        'a nested zip-slip name',
        () => tarOf([{ name: 'a/b/../../../evil.txt', content: 'x' }]),
        'ARCHIVE_UNSAFE',
        /climbs out/,
      ],
      [
        'a zip-slip name in a zip',
        async () =>
          patchBytes(
            await zipOf([
              { name: 'ok.txt', content: 'ok' },
              { name: 'xx/evil.txt', content: 'x' },
            ]),
            'xx/evil.txt',
            '../evil.txt',
          ),
        'ARCHIVE_UNSAFE',
        /\.\./,
      ],
      [
        'an absolute name',
        () => tarOf([{ name: '/tmp/evil.txt', content: 'x' }]),
        'ARCHIVE_UNSAFE',
        /absolute/,
      ],
      [
        'a symlink pointing out',
        () => tarOf([{ name: 'link', type: 'symlink', linkname: '../../outside' }]),
        'ARCHIVE_UNSAFE',
        /outside/,
      ],
      [
        'a symlink to an absolute path',
        () => tarOf([{ name: 'etc', type: 'symlink', linkname: '/etc' }]),
        'ARCHIVE_UNSAFE',
        /absolute/,
      ],
      [
        'a file written through a symlinked parent',
        () =>
          tarOf([
            { name: 'a/up', type: 'symlink', linkname: '..' },
            { name: 'a/up/x.txt', content: 'x' },
          ]),
        'ARCHIVE_UNSAFE',
        /below the symlink/,
      ],
      [
        'a duplicate name replacing a directory by a symlink',
        () =>
          tarOf([
            { name: 'd/x.txt', content: 'x' },
            { name: 'd', type: 'symlink', linkname: 'elsewhere' },
          ]),
        'ARCHIVE_UNSAFE',
        /twice/,
      ],
      [
        'a hard link',
        () =>
          tarOf([
            { name: 'ok.txt', content: 'x' },
            { name: 'hard', type: 'link', linkname: 'ok.txt' },
          ]),
        'ARCHIVE_UNSAFE',
        /hard link/,
      ],
      [
        'a device file',
        () => tarOf([{ name: 'dev', type: 'character-device', devmajor: 1, devminor: 3 }]),
        'ARCHIVE_UNSAFE',
        /device/,
      ],
      ['a FIFO', () => tarOf([{ name: 'pipe', type: 'fifo' }]), 'ARCHIVE_UNSAFE', /FIFO/],
      [
        'a zip bomb past the ratio cap',
        () => zipOf([{ name: 'zeros.bin', content: Buffer.alloc(24 * 1024 * 1024) }]),
        'ARCHIVE_TOO_LARGE',
        /expands/,
      ],
      [
        'a tar.gz bomb past the ratio cap',
        () => tarOf([{ name: 'zeros.bin', content: Buffer.alloc(24 * 1024 * 1024) }]),
        'ARCHIVE_TOO_LARGE',
        /expands/,
      ],
      [
        '100k tiny entries past the entry cap',
        () => tarOf(Array.from({ length: 100_000 }, (_, i) => ({ name: `f/${i}`, content: 'x' }))),
        'ARCHIVE_TOO_LARGE',
        /entries/,
      ],
      [
        // Without zip64 a zip holds at most 65,535 entries (the helper writes no zip64).
        '60k tiny zip entries past the entry cap',
        async () => storedZipOf(Array.from({ length: 60_000 }, (_, i) => ({ name: `f/${i}`, content: 'x' }))),
        'ARCHIVE_TOO_LARGE',
        /entries/,
      ],
    ];
    for (const [what, build, code, message] of corpus) {
      it(`refuses ${what}`, async () => {
        const s = await t.createSession({ files: { 'keep.txt': 'untouched' } });
        const before = fingerprint(workspaceDir(s));
        const res = await extract(s, await build());
        expect(res.body.error?.code, JSON.stringify(res.body)).toBe(code);
        expect(res.body.error.message).toMatch(message);
        expect(res.body.error.suggestion).toMatch(/Nothing was written/);
        expect(fingerprint(workspaceDir(s))).toBe(before);
      }, 60_000);
    }
  });

  it('refuses an archive that clashes with the workspace (409) before moving anything', async () => {
    const s = await t.createSession({ files: { 'a/file.txt': 'x', 'b.txt': 'b' } });
    const before = fingerprint(workspaceDir(s));
    const res = await extract(
      s,
      await tarOf([
        { name: 'b.txt', content: 'new' },
        { name: 'a', type: 'symlink', linkname: 'b.txt' },
      ]),
    );
    expect(res.status).toBe(409);
    expect(fingerprint(workspaceDir(s))).toBe(before);
  });

  // The packer fails at once for a path that is neither a file nor a directory, before the service
  // has read anything; that failure used to be an 'error' event nobody listened to yet, which stopped
  // the session's runtime (503 RUNTIME_UNAVAILABLE, and a restart). The same happened, by timing, when a
  // directory was swapped away between the packer's stat and its walk.
  it('answers a download the packer refuses at once with a clear error, and the runtime keeps running', async () => {
    const s = await t.createSession({ files: { 'a.txt': 'a' } });
    expect((await t.call(s, 'run_command', { command: 'mkfifo pipe' })).status).toBe(200);
    const starts = async () => (await t.admin(t.http.get(`/v1/sessions/${s.id}`))).body.runtime.starts;
    const before = await starts();
    for (const format of ['tar.gz', 'zip']) {
      const res = await download(s, `path=pipe&format=${format}`);
      expect(res.status, format).toBe(422);
      expect(JSON.parse((res.body as Buffer).toString('utf8')).error).toMatchObject({ code: 'NOT_A_FILE' });
    }
    expect((await t.call(s, 'read_file', { path: 'a.txt' })).status).toBe(200);
    expect(await starts()).toBe(before);
  });

  it('needs write permission to extract, read permission to download, and audits both', async () => {
    const ro = await t.createSession({ profile: 'read-only', files: { 'a.txt': 'a' } });
    const refused = await extract(ro, await tarOf([{ name: 'x', content: 'x' }]));
    expect(refused.status).toBe(403);
    expect((await download(ro, 'format=zip')).status).toBe(200);
    const rows = await t.admin(t.http.get(`/v1/audit?sessionId=${ro.id}`));
    const tools = rows.body.entries.map((e: { tool: string; status: string }) => `${e.tool}:${e.status}`);
    expect(tools).toEqual(expect.arrayContaining(['archive_extract:refused', 'archive_download:success']));
  });
});
