// compareSnapshots, table-driven: what git would call each change between two manifests.
import { describe, expect, it } from 'vitest';
import { compareSnapshots } from '../../src/snapshots/changes.js';
import type { Manifest, ManifestEntry } from '../../src/snapshots/manifest.js';

const file = (path: string, sha: string, mode = 0o644, size = 1): ManifestEntry => ({
  path,
  type: 'file',
  mode,
  size,
  mtimeMs: 0,
  sha256: sha.padEnd(64, '0'),
});
const link = (path: string, target: string): ManifestEntry => ({
  path,
  type: 'symlink',
  mode: 0o777,
  size: 0,
  mtimeMs: 0,
  linkTarget: target,
});
const dir = (path: string): ManifestEntry => ({ path, type: 'directory', mode: 0o755, size: 0, mtimeMs: 0 });
const manifest = (...entries: ManifestEntry[]): Manifest => ({ takenAt: 0, entries });
const summary = (base: Manifest, now: Manifest) =>
  compareSnapshots(base, now).map((c) => [c.status, c.before?.path ?? null, c.after?.path ?? null]);

describe('compareSnapshots', () => {
  it.each([
    ['nothing', manifest(file('a', 'a')), manifest(file('a', 'a')), []],
    ['an edit', manifest(file('a', 'a')), manifest(file('a', 'b')), [['modified', 'a', 'a']]],
    [
      'only the executable bit',
      manifest(file('a', 'a')),
      manifest(file('a', 'a', 0o755)),
      [['modified', 'a', 'a']],
    ],
    ['a mode git does not record', manifest(file('a', 'a')), manifest(file('a', 'a', 0o600)), []],
    ['a rename', manifest(file('a', 'a')), manifest(file('b', 'a')), [['renamed', 'a', 'b']]],
    [
      'two copies renamed pair one to one',
      manifest(file('a', 'x'), file('b', 'x')),
      manifest(file('c', 'x'), file('d', 'x')),
      [
        ['renamed', 'a', 'c'],
        ['renamed', 'b', 'd'],
      ],
    ],
    [
      'empty files are never paired',
      manifest(file('a', 'e', 0o644, 0)),
      manifest(file('b', 'e', 0o644, 0)),
      [
        ['deleted', 'a', null],
        ['added', null, 'b'],
      ],
    ],
    ['file to symlink', manifest(file('a', 'a')), manifest(link('a', 'b')), [['type_changed', 'a', 'a']]],
    ['directories alone are not changes', manifest(dir('d')), manifest(dir('e')), []],
    ['a symlink retargeted', manifest(link('l', 'x')), manifest(link('l', 'y')), [['modified', 'l', 'l']]],
  ])('%s', (_name, base, now, expected) => {
    expect(summary(base, now)).toEqual(expected);
  });
});
