// The runtime's two tar.gz packers (src/runtime/inside/archive-pack.ts) on the same tree: the system's
// GNU tar (fed the walk's names) and tar-stream must give the same entries, in the same order, with the
// same names, types, modes, times, link targets, owners and bytes: awkward names, hard links,
// .gitignore'd files and symlinks pointing out included, nothing followed.
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { gunzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { packSource } from '../../src/runtime/inside/archive-pack.js';
import { startTar, systemTar } from '../../src/runtime/inside/archive-tar.js';
import { WorkspacePaths } from '../../src/runtime/inside/paths.js';
import { tempDir } from '../helpers/app.js';

type Entry = Pick<tar.Header, 'name' | 'type' | 'mode' | 'uid' | 'gid'> & {
  mtime: number;
  linkname: string | null;
  sha: string;
};

async function entriesOf(archive: Buffer): Promise<Entry[]> {
  const extract = tar.extract();
  const entries: Entry[] = [];
  extract.on('entry', (header, stream, next) => {
    const parts: Buffer[] = [];
    stream.on('data', (c) => parts.push(c as Buffer));
    stream.on('end', () => {
      entries.push({
        name: header.name,
        type: header.type,
        mode: header.mode,
        uid: header.uid,
        gid: header.gid,
        mtime: Math.floor(header.mtime!.getTime() / 1000),
        linkname: header.linkname ?? null,
        sha: createHash('sha256').update(Buffer.concat(parts)).digest('hex'),
      });
      next();
    });
  });
  extract.end(gunzipSync(archive));
  await new Promise((resolve, reject) => extract.on('finish', () => resolve(undefined)).on('error', reject));
  return entries;
}

async function pack(
  root: string,
  relative: string,
  gitignore: boolean,
  packer: 'system' | 'tar-stream',
): Promise<Buffer> {
  const paths = new WorkspacePaths(root);
  const source = await packSource(await paths.resolve(relative), root, 'tar.gz', gitignore, packer);
  const parts: Buffer[] = [];
  for (;;) {
    const { chunk, eof } = await source.read(1024 * 1024);
    parts.push(chunk);
    if (eof) break;
  }
  await source.close();
  return Buffer.concat(parts);
}

describe.skipIf(!systemTar())('system tar packer', () => {
  let root: string;
  beforeAll(() => {
    const base = tempDir('toolgate-pack-');
    root = path.join(base, 'ws');
    writeFileSync(path.join(base, 'secret.txt'), 'outside\n');
    mkdirSync(path.join(root, 'src/deep/er'), { recursive: true });
    writeFileSync(path.join(root, 'README.md'), '# hi\n');
    writeFileSync(path.join(root, 'src/main.py'), 'print(1)\n');
    chmodSync(path.join(root, 'src/main.py'), 0o755);
    writeFileSync(path.join(root, 'src/deep/er/blob.bin'), randomBytes(700_000));
    linkSync(path.join(root, 'README.md'), path.join(root, 'src/hard-link.md'));
    // Names tar would otherwise read as options, escapes, wildcards or newlines.
    for (const name of ['-rf', '--exclude=*', 'back\\slash', 'star*', 'new\nline', 'sp ace', 'ünï'])
      writeFileSync(path.join(root, 'src', name), name);
    writeFileSync(path.join(root, `src/${'long-'.repeat(40)}.txt`), 'long name\n');
    symlinkSync('../README.md', path.join(root, 'src/readme-link'));
    symlinkSync('../../secret.txt', path.join(root, 'src/out-link'));
    symlinkSync(path.join(base), path.join(root, 'src/out-dir'));
    execFileSync('mkfifo', [path.join(root, 'src/fifo')]);
    writeFileSync(path.join(root, '.gitignore'), '*.log\nbuild/\n');
    writeFileSync(path.join(root, 'debug.log'), 'noise\n');
    mkdirSync(path.join(root, 'build'));
    writeFileSync(path.join(root, 'build/out.js'), 'x\n');
    mkdirSync(path.join(root, '.git'));
    writeFileSync(path.join(root, '.git/HEAD'), 'ref: refs/heads/main\n');
    mkdirSync(path.join(root, 'empty'), { mode: 0o750 });
    chmodSync(path.join(root, 'empty'), 0o750);
    utimesSync(path.join(root, 'README.md'), 1_000_000_000, 1_000_000_000);
  });

  for (const [relative, gitignore] of [
    ['.', false],
    ['.', true],
    ['src', false],
    ['src/main.py', false],
  ] as const) {
    it(`gives tar-stream's entries for ${relative}${gitignore ? ' without ignored files' : ''}`, async () => {
      const system = await entriesOf(await pack(root, relative, gitignore, 'system'));
      const fallback = await entriesOf(await pack(root, relative, gitignore, 'tar-stream'));
      expect(system).toEqual(fallback);
      expect(system.length).toBeGreaterThan(0);
      const names = system.map((e) => e.name);
      expect(names).not.toContain('src/fifo');
      expect(names.some((n) => n.includes('secret'))).toBe(false);
      if (gitignore) expect(names.filter((n) => /\.log$|^build|^\.git\//.test(n))).toEqual([]);
      if (relative === '.' && !gitignore) {
        expect(names).toContain('debug.log');
        expect(system.find((e) => e.name === 'src/hard-link.md')).toMatchObject({ type: 'file' });
        expect(system.find((e) => e.name === 'src/out-link')).toMatchObject({
          type: 'symlink',
          linkname: '../../secret.txt',
        });
        expect(system.find((e) => e.name === 'empty/')).toMatchObject({ type: 'directory', mode: 0o750 });
      }
    });
  }

  it('is a gzip that GNU tar lists the same way', async () => {
    const archive = await pack(root, 'src', false, 'system');
    const listed = execFileSync('tar', ['-tzf', '-'], { input: archive }).toString();
    expect(listed).toContain('main.py');
    expect(listed).toContain('-rf');
  });
});

describe('system tar that stops early', () => {
  // tar exits at once when its directory is gone (here it never existed); a name too long for the pipe
  // is then waiting for tar to read it, and the wait ends in an EPIPE on tar's stdin, which is "tar
  // stopped", a tool failure with tar's complaint, not a file operation's internal error.
  it.runIf(systemTar() !== null)('ends the walk with TOOL_FAILED, not EPIPE', async () => {
    const tarProcess = startTar(systemTar()!, path.join(tempDir(), 'gone'));
    tarProcess.output.on('error', () => undefined);
    const failure = await tarProcess.add('x'.repeat(1024 * 1024)).then(
      () => null,
      (err: unknown) => err,
    );
    expect(failure).toMatchObject({ name: 'ToolgateError', code: 'TOOL_FAILED' });
    expect((failure as Error).message).toMatch(/tar stopped before the walk ended/);
  });
});
