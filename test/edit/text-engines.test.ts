// The pure text engines (src/text): no workspace, no runtime, just strings and bytes in and out.
import { describe, expect, it } from 'vitest';
import { isToolgateError } from '../../src/lib/errors.js';
import { errorCodeOf as codeOf } from '../helpers/error-code.js';
import { applyEdit } from '../../src/edit/apply-edit.js';
import { editDistance } from '../../src/lib/edit-distance.js';
import { LineWindow } from '../../src/lib/line-window.js';
import { mimeType } from '../../src/lib/mime.js';
import { cleanName, hunkFailure, parseUnifiedDiff } from '../../src/edit/patch.js';
import { closestRegion, similarity } from '../../src/edit/similarity.js';
import { decodeText, encodeText } from '../../src/edit/text-file.js';
import { cutLine, looksBinary } from '../../src/lib/text.js';

describe('applyEdit', () => {
  it('replaces an exact match, keeping $ sequences literal', () => {
    const out = applyEdit(
      'let a = 1;\nlet b = 2;\n',
      { old_string: 'let b = 2;', new_string: 'let b = "$&$$";' },
      'f',
    );
    expect(out).toMatchObject({ text: 'let a = 1;\nlet b = "$&$$";\n', replacements: 1, strategy: 'exact' });
  });

  it('refuses an ambiguous match unless replace_all, and names a missing one', () => {
    expect(codeOf(() => applyEdit('x\nx\n', { old_string: 'x', new_string: 'y' }, 'f'))).toBe(
      'EDIT_AMBIGUOUS',
    );
    expect(applyEdit('x\nx\n', { old_string: 'x', new_string: 'y', replace_all: true }, 'f').text).toBe(
      'y\ny\n',
    );
    expect(codeOf(() => applyEdit('abc\n', { old_string: 'zzz', new_string: 'y' }, 'f'))).toBe(
      'EDIT_NOT_FOUND',
    );
  });

  it('falls back to a whitespace-tolerant strategy and says which', () => {
    const out = applyEdit(
      '  if (a) {\n    go();\n  }\n',
      { old_string: 'if (a) {\ngo();\n}', new_string: 'stop();' },
      'f',
    );
    expect(out.strategy).not.toBe('exact');
    expect(out.text).toContain('stop();');
  });
});

describe('similarity and closest regions', () => {
  it('scores identical text 1 and unrelated text low', () => {
    expect(similarity('function main()', 'function main()')).toBe(1);
    expect(similarity('function main()', 'zzzz')).toBeLessThan(0.2);
  });

  it('finds the window of lines most like the wanted text', () => {
    const region = closestRegion(['a', 'const total = sum(x);', 'b'], 'const total = sum(y);');
    expect(region).toMatchObject({ startLine: 2, endLine: 2, text: 'const total = sum(x);' });
    expect(closestRegion([], 'x')).toBeUndefined();
  });

  it('edit distance counts single-character edits', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });
});

describe('text decoding', () => {
  it('strips a BOM and CRLF for matching, and puts both back', () => {
    const file = decodeText(Buffer.from('\uFEFFa\r\nb\r\n'), 'f', 0o644);
    expect(file).toMatchObject({ text: 'a\nb\n', bom: true, crlf: true, mode: 0o644 });
    expect(encodeText(file, 'a\nc\n').toString()).toBe('\uFEFFa\r\nc\r\n');
  });

  it('keeps mixed line endings as they are and refuses binary content', () => {
    expect(decodeText(Buffer.from('a\r\nb\n'), 'f')).toMatchObject({ text: 'a\r\nb\n', crlf: false });
    expect(codeOf(() => decodeText(Buffer.from([0x61, 0, 0x62]), 'f'))).toBe('BINARY_FILE');
    expect(looksBinary(Buffer.from('plain'))).toBe(false);
  });

  it('cuts long lines and marks them', () => {
    const { text, cut } = cutLine('x'.repeat(3000));
    expect(cut).toBe(true);
    expect(text.length).toBeLessThan(3000);
  });
});

describe('LineWindow', () => {
  it('returns the requested window from chunks split anywhere, counting every line', () => {
    const window = new LineWindow(2, 2, 1_000_000);
    for (const chunk of ['one\ntw', 'o\nthree\nfo', 'ur']) window.push(chunk);
    window.end();
    expect(window.lines).toEqual(['two', 'three']);
    expect(window.totalLines).toBe(4);
  });

  it('stops at its byte budget', () => {
    const window = new LineWindow(1, 100, 10);
    window.push('aaaaaaaa\nbbbbbbbb\ncccccccc\n');
    window.end();
    expect(window.budgetHit).toBe(true);
    expect(window.lines.length).toBeLessThan(3);
  });
});

describe('unified diffs', () => {
  const patch = '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,1 +1,1 @@\n-let a = 1;\n+const a = 1;\n';

  it('parses files and strips git prefixes', () => {
    const [file] = parseUnifiedDiff(patch);
    expect(cleanName(file.oldFileName, 'a/')).toBe('src/a.ts');
    expect(cleanName('/dev/null', 'a/')).toBeNull();
    expect(codeOf(() => parseUnifiedDiff('not a diff at all'))).toBe('PATCH_FAILED');
  });

  it('names the hunk that does not fit, with the closest text', () => {
    const [file] = parseUnifiedDiff(patch);
    let suggestion = '';
    try {
      hunkFailure('let b = 2;\n', file, 'src/a.ts');
    } catch (err) {
      expect(isToolgateError(err) && err.code).toBe('PATCH_FAILED');
      suggestion = isToolgateError(err) ? (err.suggestion ?? '') : '';
    }
    expect(suggestion).toContain('let b = 2;');
  });
});

describe('mime types', () => {
  it('guesses from the name, and binary content overrides text types', () => {
    expect(mimeType('a.json', false)).toBe('application/json');
    expect(mimeType('unknown.bin', true)).toBe('application/octet-stream');
  });
});
