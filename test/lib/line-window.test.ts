// Line windows (src/lib/line-window.ts) as a table: chunks split anywhere, an offset and limit, a byte
// budget → the lines kept and the lines counted.
import { describe, expect, it } from 'vitest';
import { LineWindow } from '../../src/lib/line-window.js';
import { MAX_LINE_CHARS } from '../../src/lib/text.js';

const run = (chunks: string[], offset: number, limit: number, maxBytes = 1 << 20) => {
  const window = new LineWindow(offset, limit, maxBytes);
  for (const chunk of chunks) window.push(chunk);
  window.end();
  return {
    lines: window.lines,
    total: window.totalLines,
    cut: window.linesCut,
    budgetHit: window.budgetHit,
  };
};

describe('LineWindow', () => {
  it.each([
    { chunks: ['a\nb\nc\n'], offset: 1, limit: 10, lines: ['a', 'b', 'c'], total: 3 },
    { chunks: ['a\nb', '\nc'], offset: 2, limit: 1, lines: ['b'], total: 3 },
    { chunks: ['a', '', '\n', 'b\n'], offset: 1, limit: 5, lines: ['a', 'b'], total: 2 },
    { chunks: ['\n\n'], offset: 1, limit: 5, lines: ['', ''], total: 2 },
    { chunks: ['x\r\ny\r\n'], offset: 1, limit: 5, lines: ['x\r', 'y\r'], total: 2 },
    { chunks: ['only'], offset: 1, limit: 5, lines: ['only'], total: 1 },
    { chunks: [''], offset: 1, limit: 5, lines: [], total: 0 },
    { chunks: ['a\nb\n'], offset: 5, limit: 5, lines: [], total: 2 },
  ])(
    '$chunks from line $offset, $limit lines → $lines of $total',
    ({ chunks, offset, limit, lines, total }) => {
      expect(run(chunks, offset, limit)).toMatchObject({ lines, total, budgetHit: false });
    },
  );

  it('cuts long lines and counts them', () => {
    const result = run([`${'x'.repeat(MAX_LINE_CHARS + 10)}\nshort\n`], 1, 5);
    expect(result.cut).toBe(1);
    expect(result.lines[1]).toBe('short');
    expect(result.lines[0].length).toBeLessThan(MAX_LINE_CHARS + 100);
  });

  it('stops at its byte budget but keeps counting, and always keeps one line', () => {
    expect(run(['aaaa\nbbbb\ncccc\n'], 1, 10, 10)).toMatchObject({
      lines: ['aaaa', 'bbbb'],
      total: 3,
      budgetHit: true,
    });
    expect(run(['aaaaaaaaaa\nb\n'], 1, 10, 3)).toMatchObject({
      lines: ['aaaaaaaaaa'],
      total: 2,
      budgetHit: true,
    });
  });
});

describe('LineWindow.pushWhole', () => {
  const long = 'x'.repeat(MAX_LINE_CHARS + 1);
  const texts = [
    '',
    '\n',
    '\n\n',
    'a',
    'a\nb\nc\n',
    'a\nb\nc',
    'x\r\ny\r\n',
    'é\n€\n😀\n',
    `${long}\nshort\n`,
    `${'y'.repeat(MAX_LINE_CHARS)}\n`,
    'aaaa\nbbbb\ncccc\n',
  ];
  const windows = [
    { offset: 1, limit: 10, maxBytes: 1 << 20 },
    { offset: 1, limit: 2, maxBytes: 1 << 20 },
    { offset: 2, limit: 10, maxBytes: 1 << 20 },
    { offset: 1, limit: 10, maxBytes: 10 },
    { offset: 1, limit: 10, maxBytes: 15 },
    { offset: 1, limit: 10, maxBytes: 3 },
  ];
  const cases = texts.flatMap((text) => windows.map((window) => ({ text, ...window })));

  it.each(cases)(
    'gives what push and end give: $text.length chars from line $offset, $limit lines, $maxBytes bytes',
    ({ text, offset, limit, maxBytes }) => {
      const pushed = new LineWindow(offset, limit, maxBytes);
      // Split anywhere: a chunk boundary must not change what the window holds.
      pushed.push(text.slice(0, 3));
      pushed.push(text.slice(3));
      pushed.end();
      const whole = new LineWindow(offset, limit, maxBytes);
      whole.pushWhole(text);
      const seen = (w: LineWindow) => ({
        content: w.content,
        lineCount: w.lineCount,
        totalLines: w.totalLines,
        linesCut: w.linesCut,
        budgetHit: w.budgetHit,
      });
      expect(seen(whole)).toEqual(seen(pushed));
      expect(pushed.content).toBe(pushed.lines.join('\n'));
    },
  );

  it('takes a text it holds whole as its content without splitting it into lines', () => {
    const window = new LineWindow(1, 10, 1 << 20);
    window.pushWhole('a\nb\n');
    expect(window).toMatchObject({ content: 'a\nb', lineCount: 2, totalLines: 2, lines: [] });
  });
});
