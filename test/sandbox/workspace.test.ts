// The path checks the runtime makes inside its namespace (src/runtime/inside/paths.ts), on a host directory:
// the confinement itself comes from the namespace, these checks give the clear 403s.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isToolgateError } from '../../src/lib/errors.js';
import { WorkspacePaths } from '../../src/runtime/inside/paths.js';

// Layout: <base>/ws1 is the workspace; <base>/ws1-other is a sibling with a shared name prefix;
// <base>/secret.txt and <base>/outside/ are outside. Symlinks inside ws1 point every which way.
let base: string;
let ws: WorkspacePaths;

beforeAll(async () => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-ws-')));
  const root = path.join(base, 'ws1');
  mkdirSync(path.join(root, 'src/nested'), { recursive: true });
  writeFileSync(path.join(root, 'src/a.ts'), 'a');
  mkdirSync(path.join(base, 'ws1-other'));
  writeFileSync(path.join(base, 'ws1-other/x.txt'), 'x');
  writeFileSync(path.join(base, 'secret.txt'), 'secret');
  mkdirSync(path.join(base, 'outside'));
  writeFileSync(path.join(base, 'outside/file.txt'), 'o');
  symlinkSync(path.join(base, 'secret.txt'), path.join(root, 'link-file-out'));
  symlinkSync(path.join(base, 'outside'), path.join(root, 'link-dir-out'));
  symlinkSync('../ws1-other', path.join(root, 'link-sibling'));
  symlinkSync('/etc', path.join(root, 'link-etc'));
  symlinkSync('/', path.join(root, 'link-root'));
  symlinkSync(path.join(base, 'nowhere/new.txt'), path.join(root, 'dangling-out'));
  symlinkSync('link-dir-out', path.join(root, 'chain1'));
  symlinkSync('chain1', path.join(root, 'chain2'));
  symlinkSync('loop-b', path.join(root, 'loop-a'));
  symlinkSync('loop-a', path.join(root, 'loop-b'));
  symlinkSync('src/a.ts', path.join(root, 'link-in'));
  symlinkSync('src', path.join(root, 'link-dir-in'));
  symlinkSync('src/new-target.ts', path.join(root, 'dangling-in'));
  symlinkSync('..', path.join(root, 'src/up'));
  ws = new WorkspacePaths(realpathSync(root));
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

async function codeOf(input: string): Promise<string> {
  try {
    await ws.resolve(input);
    return 'OK';
  } catch (err) {
    if (isToolgateError(err)) {
      expect(err.message).not.toContain(base);
      return err.code;
    }
    throw err;
  }
}

const outside = [
  '..',
  '../',
  '../secret.txt',
  '../../etc/passwd',
  '/../secret.txt',
  '/../../../../etc/passwd',
  'src/../../secret.txt',
  'src/nested/../../../secret.txt',
  './../secret.txt',
  '../ws1-other/x.txt',
  '../ws1/../ws1-other/x.txt',
  'src/../../ws1-other',
  '//../secret.txt',
  '../ws1-other',
  'link-file-out',
  'link-dir-out',
  'link-dir-out/file.txt',
  'link-dir-out/new-file.txt',
  'link-dir-out/deep/new/dir/file.txt',
  'link-sibling',
  'link-sibling/x.txt',
  'link-etc/passwd',
  'link-etc',
  'link-root',
  'link-root/etc/passwd',
  'dangling-out',
  'chain2',
  'chain2/file.txt',
  'chain2/new.txt',
  'link-dir-in/../../secret.txt',
  '../../../../../../../../etc/shadow',
  '..//secret.txt',
  '/..',
  '../.',
  'src/nested/../../..',
  'link-root/tmp',
  'chain1',
  'chain1/new/dir/file.txt',
  'link-etc/../../secret.txt',
];

describe('Workspace.resolve refuses paths outside the workspace', () => {
  for (const input of outside) {
    it(`refuses ${JSON.stringify(input)} with PATH_OUTSIDE_WORKSPACE`, async () => {
      expect(await codeOf(input)).toBe('PATH_OUTSIDE_WORKSPACE');
    });
  }

  it('refuses NUL bytes as INVALID_PATH', async () => {
    expect(await codeOf('src/a.ts\0../../secret.txt')).toBe('INVALID_PATH');
    expect(await codeOf('\0')).toBe('INVALID_PATH');
  });

  it('refuses over-long paths and components as INVALID_PATH', async () => {
    expect(await codeOf('a/'.repeat(3000))).toBe('INVALID_PATH');
    expect(await codeOf('x'.repeat(300))).toBe('INVALID_PATH');
  });

  it('refuses symlink loops as INVALID_PATH', async () => {
    expect(await codeOf('loop-a')).toBe('INVALID_PATH');
  });

  it('never follows a symlinked parent of a file that does not exist yet', async () => {
    expect(await codeOf('link-dir-out/brand-new.txt')).toBe('PATH_OUTSIDE_WORKSPACE');
  });
});

describe('Workspace.resolve accepts paths inside the workspace', () => {
  const inside: [string, string][] = [
    ['.', '.'],
    ['', '.'],
    ['/', '.'],
    ['src/a.ts', 'src/a.ts'],
    ['/src/a.ts', 'src/a.ts'],
    ['./src/./a.ts', 'src/a.ts'],
    ['src/nested/../a.ts', 'src/a.ts'],
    ['src//a.ts', 'src/a.ts'],
    ['new/dir/file.txt', 'new/dir/file.txt'],
    ['link-in', 'src/a.ts'],
    ['link-dir-in/a.ts', 'src/a.ts'],
    ['dangling-in', 'src/new-target.ts'],
    ['%2e%2e/secret.txt', '%2e%2e/secret.txt'],
    ['..\\secret.txt', '..\\secret.txt'],
    ['...', '...'],
    ['src/up', '.'],
    // ".." is applied to the path as written, before symlinks, and the normalized path is what gets used.
    ['src/up/secret.txt', 'secret.txt'],
    ['src/up/../secret.txt', 'src/secret.txt'],
    ['link-dir-in/up/../secret.txt', 'src/secret.txt'],
  ];
  for (const [input, relative] of inside) {
    it(`resolves ${JSON.stringify(input)} to ${relative}`, async () => {
      const resolved = await ws.resolve(input);
      expect(resolved.relative).toBe(relative);
      expect(ws.contains(resolved.absolute)).toBe(true);
    });
  }

  it('with followFinalSymlink false acts on the link itself, even when it points outside', async () => {
    const resolved = await ws.resolve('link-file-out', { followFinalSymlink: false });
    expect(resolved.relative).toBe('link-file-out');
  });

  it('a sibling directory sharing the name prefix is not inside', () => {
    expect(ws.contains(path.join(base, 'ws1-other', 'x.txt'))).toBe(false);
    expect(ws.contains(path.join(base, 'ws1'))).toBe(true);
  });

  it('counts at least 40 hostile paths', () => {
    expect(outside.length + 5).toBeGreaterThanOrEqual(40);
  });
});
