// Expected vs actual of a failed eval expectation, as a line diff (- expected, + actual): the longest
// common subsequence of lines, so a one-line difference in a long file shows as one line. Values that
// are not strings are compared as pretty-printed JSON.
import { h } from './dom.js';

const MAX_LINES = 400;
const text = (value) => (typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? 'undefined'));

/** [kind, line] pairs: ' ' both, '-' expected only, '+' actual only. */
export function lineDiff(expected, actual) {
  const a = expected.split('\n').slice(0, MAX_LINES);
  const b = actual.split('\n').slice(0, MAX_LINES);
  // lengths[i][j]: LCS length of a[i..] and b[j..].
  const lengths = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i][j] =
        a[i] === b[j] ? lengths[i + 1][j + 1] + 1 : Math.max(lengths[i + 1][j], lengths[i][j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push([' ', a[i]]);
      i++;
      j++;
    }
    // Expected lines first where both sides differ, as a unified diff shows them.
    else if (i < a.length && (j === b.length || lengths[i + 1][j] >= lengths[i][j + 1]))
      out.push(['-', a[i++]]);
    else out.push(['+', b[j++]]);
  }
  return out;
}

/** One mismatch: what was checked, and its expected and actual values as a diff. */
export function mismatchView(mismatch) {
  const rows = lineDiff(text(mismatch.expected), text(mismatch.actual));
  const kind = { ' ': 'ctx', '-': 'del', '+': 'add' };
  return h(
    'div.mismatch',
    {},
    h('p', {}, h('strong', {}, mismatch.what)),
    h(
      'pre.diff',
      { 'aria-label': `expected (−) and actual (+) of ${mismatch.what}` },
      h('span.meta', {}, '- expected\n+ actual\n'),
      rows.map(([k, line]) => h(`span.${kind[k]}`, {}, `${k} ${line}\n`)),
    ),
  );
}
