// Patch planning without a workspace: what each file of a unified diff does (added, deleted, modified,
// renamed), how many lines it adds and removes, the new text, and which hunk does not fit.
import { applyPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { count, hunkFailure, parseUnifiedDiff, patchStatus } from '../../src/edit/patch.js';
import { isToolgateError } from '../../src/lib/errors.js';
import { errorCodeOf as codeOf } from '../helpers/error-code.js';

const PATCH = [
  '--- a/src/mod.ts',
  '+++ b/src/mod.ts',
  '@@ -1,3 +1,3 @@',
  ' one',
  '-two',
  '+TWO',
  ' three',
  '--- /dev/null',
  '+++ b/src/new.ts',
  '@@ -0,0 +1,2 @@',
  '+fresh',
  '+file',
  '--- a/src/old.ts',
  '+++ /dev/null',
  '@@ -1,1 +0,0 @@',
  '-gone',
  '--- a/src/from.ts',
  '+++ b/src/to.ts',
  '',
].join('\n');

describe('patch planning', () => {
  it('classifies each file and counts its lines', () => {
    const files = parseUnifiedDiff(PATCH.replace(/\n/g, '\r\n'));
    expect(files.map((f) => ({ ...patchStatus(f), added: count(f, '+'), removed: count(f, '-') }))).toEqual([
      { status: 'modified', oldName: 'src/mod.ts', newName: 'src/mod.ts', added: 1, removed: 1 },
      { status: 'added', oldName: null, newName: 'src/new.ts', added: 2, removed: 0 },
      { status: 'deleted', oldName: 'src/old.ts', newName: null, added: 0, removed: 1 },
      { status: 'renamed', oldName: 'src/from.ts', newName: 'src/to.ts', added: 0, removed: 0 },
    ]);
    expect(applyPatch('one\ntwo\nthree\n', files[0])).toBe('one\nTWO\nthree\n');
    expect(applyPatch('', files[1])).toBe('fresh\nfile\n');
  });

  it('refuses text that is no patch, and a file with no name', () => {
    expect(codeOf(() => parseUnifiedDiff('just some text\n'))).toBe('PATCH_FAILED');
    expect(codeOf(() => patchStatus({ oldFileName: '/dev/null', newFileName: '/dev/null' }))).toBe(
      'PATCH_FAILED',
    );
  });

  it('names the hunk that does not fit and the closest text', () => {
    const [file] = parseUnifiedDiff(
      [
        '--- a/f',
        '+++ b/f',
        '@@ -1,1 +1,1 @@',
        '-alpha',
        '+ALPHA',
        '@@ -5,1 +5,1 @@',
        '-epsilon',
        '+E',
        '',
      ].join('\n'),
    );
    const text = 'alpha\nbeta\ngamma\ndelta\nepsilom\n';
    try {
      hunkFailure(text, file, 'f');
      expect.unreachable();
    } catch (err) {
      expect(isToolgateError(err) && err.message).toMatch(
        /^hunk 2 of 2 \(@@ -5,1 \+5,1 @@\) does not apply to f/,
      );
      expect(isToolgateError(err) && err.suggestion).toContain('(lines 5-5)');
    }
  });
});
