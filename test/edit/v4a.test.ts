// The V4A engine without a workspace: what the parser reads (and refuses, with the patch line), where the
// applier puts chunks at each match level, and the errors a model gets. The corpus in
// test/fixtures/v4a runs whole patches through apply_patch (test/tools/edit/v4a-corpus.test.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isToolgateError } from '../../src/lib/errors.js';
import { applyV4aChunks } from '../../src/edit/v4a-apply.js';
import { isV4aPatch, parseUpdateBody, parseV4aPatch } from '../../src/edit/v4a-parse.js';

const wrap = (body: string) => `*** Begin Patch\n${body}\n*** End Patch\n`;

/** The ToolgateError `fn` throws. */
function failure(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    if (isToolgateError(err)) return err;
    throw err;
  }
  throw new Error('did not throw');
}

const update = (text: string, body: string) =>
  applyV4aChunks(text, parseUpdateBody(body.split('\n'), 1, 'f'), 'f');

describe('V4A parsing', () => {
  it('tells V4A from unified diffs by the first line', () => {
    expect(isV4aPatch('*** Begin Patch\n*** End Patch')).toBe(true);
    expect(isV4aPatch("\n<<'EOF'\n*** Begin Patch\n")).toBe(true);
    expect(isV4aPatch('*** Update File: a\n')).toBe(true);
    expect(isV4aPatch('--- a/x\n+++ b/x\n@@ -1 +1 @@\n- *** Begin Patch\n')).toBe(false);
  });

  it('reads every file operation, nested hints and the end-of-file mark', () => {
    const ops = parseV4aPatch(
      wrap(
        [
          '*** Add File: n.txt',
          '+a',
          '+',
          '*** Delete File: d.txt',
          '*** Update File: u.py',
          '*** Move to: v.py',
          '@@ class A',
          '@@     def f(self):',
          ' x',
          '-y',
          '+z',
          '@@',
          ' tail',
          '+more',
          '*** End of File',
        ].join('\n'),
      ),
    );
    expect(ops).toEqual([
      { kind: 'add', path: 'n.txt', content: 'a\n\n' },
      { kind: 'delete', path: 'd.txt' },
      {
        kind: 'update',
        path: 'u.py',
        moveTo: 'v.py',
        chunks: [
          {
            anchors: ['class A', '    def f(self):'],
            eof: false,
            patchLine: 8,
            lines: [
              { op: ' ', text: 'x' },
              { op: '-', text: 'y' },
              { op: '+', text: 'z' },
            ],
          },
          {
            anchors: [],
            eof: true,
            patchLine: 13,
            lines: [
              { op: ' ', text: 'tail' },
              { op: '+', text: 'more' },
            ],
          },
        ],
      },
    ]);
  });

  it('reads marker text in content lines as content', () => {
    const ops = parseV4aPatch(
      wrap(
        '*** Update File: docs/patches.md\n@@\n Start with:\n-*** Begin Patch\n+    *** Begin Patch\n *** End of File\n *** Add File: x',
      ),
    );
    expect(ops).toHaveLength(1);
    expect(ops[0]).toMatchObject({
      kind: 'update',
      chunks: [
        {
          eof: false,
          lines: [
            { op: ' ', text: 'Start with:' },
            { op: '-', text: '*** Begin Patch' },
            { op: '+', text: '    *** Begin Patch' },
            { op: ' ', text: '*** End of File' },
            { op: ' ', text: '*** Add File: x' },
          ],
        },
      ],
    });
  });

  it('names the patch line of a line that belongs to no chunk', () => {
    const err = failure(() => parseV4aPatch(wrap('*** Update File: a.py\n@@ def f():\n  x\nreturn y')));
    expect(err.code).toBe('PATCH_FAILED');
    expect(err.message).toMatch(/^Patch line 5: "return y"/);
    expect(err.suggestion).toContain('leading space');
  });

  it('refuses an unknown header, an empty update and a patch that changes nothing', () => {
    expect(failure(() => parseV4aPatch(wrap('*** Rename File: a'))).message).toContain(
      'Expected a file header',
    );
    expect(failure(() => parseV4aPatch(wrap('*** Update File: a.py'))).message).toContain('has no changes');
    expect(failure(() => parseV4aPatch(wrap(''))).message).toContain('changes no file');
    expect(failure(() => parseV4aPatch(wrap('*** Add File: x\nno plus'))).message).toContain(
      'does not start with "+"',
    );
  });
});

describe('V4A placement', () => {
  it('prefers an exact match to an earlier loose one', () => {
    const result = update('  a\nb\na\nb\n', '@@\n a\n-b\n+B');
    expect(result).toMatchObject({ text: '  a\nb\na\nB\n', level: 'exact' });
  });

  it('uses the strictest level that matches: trailing whitespace before surrounding whitespace', () => {
    expect(update('a  \nb\n', ' a\n-b\n+c').level).toBe('trailing_whitespace');
    expect(update('  a\nb\n', ' a\n-b\n+c').level).toBe('whitespace');
    expect(update('a\u2013b\nc\n', ' a-b\n-c\n+d')).toMatchObject({
      text: 'a\u2013b\nd\n',
      level: 'unicode',
    });
  });

  it('refuses two equally good places and names both lines', () => {
    const err = failure(() => update('x\ny\nx\ny\n', '-y\n+z'));
    expect(err.code).toBe('EDIT_AMBIGUOUS');
    expect(err.message).toContain('2 places in f equally well, at lines 2, 4');
    expect(err.details).toMatchObject({ lines: [2, 4], level: 'exact' });
    expect(err.suggestion).toContain('@@');
  });

  it('takes the nearest place below a hint, and the next chunk continues below the last', () => {
    const text = 'def a():\n    return 0\ndef b():\n    return 0\n';
    expect(update(text, '@@ def b():\n-    return 0\n+    return 1').text).toBe(
      'def a():\n    return 0\ndef b():\n    return 1\n',
    );
    expect(
      update(text, '@@ def a():\n-    return 0\n+    return 1\n@@\n-    return 0\n+    return 2').text,
    ).toBe('def a():\n    return 1\ndef b():\n    return 2\n');
  });

  it('says when chunks are out of file order', () => {
    const err = failure(() =>
      update(
        'def a():\n    x\ndef b():\n    y\n',
        '@@ def b():\n-    y\n+    Y\n@@ def a():\n-    x\n+    X',
      ),
    );
    expect(err.code).toBe('PATCH_FAILED');
    expect(err.suggestion).toContain('file order');
  });

  it('says when a hint is not in the file, with the closest line', () => {
    const err = failure(() =>
      update('def alpha():\n    pass\n', '@@ def alpah():\n-    pass\n+    return 1'),
    );
    expect(err.message).toContain('the line "@@ def alpah():" is not in f');
    expect(err.suggestion).toContain('def alpha():');
  });

  it('counts lines and keeps a file without a final newline so', () => {
    expect(update('a\nb', ' a\n-b\n+c\n+d')).toEqual({
      text: 'a\nc\nd',
      level: 'exact',
      additions: 2,
      deletions: 1,
    });
  });
});

describe('V4A on arbitrary text', () => {
  // Patches glued from the format's own pieces and stray text: whatever a model sends, the engine
  // answers with a ToolgateError or a result, never with another exception (a 500).
  const piece = fc.constantFrom(
    '*** Begin Patch',
    '*** End Patch',
    '*** Update File: f',
    '*** Add File: g',
    '*** Delete File: f',
    '*** Move to: h',
    '*** End of File',
    '@@',
    '@@ a',
    '@@ -1,2 +1,3 @@',
    ' a',
    ' b',
    '-a',
    '-b',
    '+c',
    '',
    'x',
  );
  it('never throws anything but a ToolgateError', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(piece, fc.string({ maxLength: 6 })), { maxLength: 14 }),
        fc.string({ maxLength: 12 }),
        (parts, file) => {
          try {
            for (const op of parseV4aPatch(`*** Begin Patch\n${parts.join('\n')}\n*** End Patch`)) {
              if (op.kind === 'update') applyV4aChunks(`a\nb\n${file}\na\n`, op.chunks, 'f');
            }
          } catch (err) {
            if (!isToolgateError(err)) throw err;
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
