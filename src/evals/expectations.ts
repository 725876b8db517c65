// Checks one call's result against its expectations. Every expectation that does not hold is one
// Mismatch (what, expected, actual): the report shows them all, not just the first.
import { query } from 'jsonpath-rfc9535';
import type { CallExpect } from './case-schema.js';
import type { CallResult } from './entry-formats.js';
import { jsonEqual, subsetMismatch } from './subset.js';

export interface Mismatch {
  /** What was checked, e.g. "call 2 (edit_file) status" or "file src/a.ts". */
  what: string;
  expected: unknown;
  actual: unknown;
}

const regex = (pattern: string) => new RegExp(pattern, 's');
/** A mismatch's JSON pointer as a suffix of what was checked: none for the whole value. */
const pointer = (at: string) => (at === '/' ? '' : at);

/** A pattern check on a text; undefined when the text matches. */
function patternMismatch(what: string, pattern: string | undefined, text: unknown): Mismatch | undefined {
  if (pattern === undefined) return undefined;
  const actual = typeof text === 'string' ? text : undefined;
  return actual !== undefined && regex(pattern).test(actual)
    ? undefined
    : { what, expected: `/${pattern}/`, actual };
}

function pathMismatches(label: string, expect: CallExpect, data: unknown): Mismatch[] {
  return (expect.paths ?? []).flatMap((assertion) => {
    const what = `${label} ${assertion.path}`;
    let found: unknown[];
    try {
      found = query(data as never, assertion.path);
    } catch (err) {
      return [{ what, expected: 'a valid JSONPath', actual: (err as Error).message }];
    }
    const out: Mismatch[] = [];
    if (assertion.exists !== undefined && found.length > 0 !== assertion.exists) {
      out.push({ what: `${what} exists`, expected: assertion.exists, actual: found.length > 0 });
    }
    if (assertion.count !== undefined && found.length !== assertion.count) {
      out.push({ what: `${what} count`, expected: assertion.count, actual: found.length });
    }
    if (assertion.equals !== undefined && !jsonEqual(assertion.equals, found[0])) {
      out.push({ what, expected: assertion.equals, actual: found[0] });
    }
    const length = (found[0] as { length?: unknown } | undefined)?.length;
    if (assertion.length !== undefined && length !== assertion.length) {
      out.push({ what: `${what} length`, expected: assertion.length, actual: length });
    }
    const matched = patternMismatch(what, assertion.matches, found[0]);
    if (matched) out.push(matched);
    return out;
  });
}

/** Whether the call should succeed: `ok` if given, else no error code and no error status expected. */
export const expectsSuccess = (expect: CallExpect): boolean =>
  expect.ok ?? (expect.code === undefined && (expect.status === undefined || expect.status < 400));

export function callMismatches(label: string, expect: CallExpect, result: CallResult): Mismatch[] {
  const out: Mismatch[] = [];
  const wantOk = expectsSuccess(expect);
  if (result.ok !== wantOk) {
    out.push({
      what: `${label} outcome`,
      expected: wantOk ? 'success' : `failure${expect.code ? ` ${expect.code}` : ''}`,
      actual: result.ok
        ? 'success'
        : `failure ${result.code ?? ''} ${String(result.error?.message ?? result.text ?? '')}`.trim(),
    });
  }
  if (expect.status !== undefined && result.status !== expect.status) {
    out.push({ what: `${label} status`, expected: expect.status, actual: result.status });
  }
  if (expect.code !== undefined && result.code !== expect.code) {
    out.push({ what: `${label} error code`, expected: expect.code, actual: result.code ?? null });
  }
  if (expect.data !== undefined) {
    const mismatch = subsetMismatch(expect.data, result.data);
    if (mismatch)
      out.push({
        what: `${label} data${pointer(mismatch.at)}`,
        expected: mismatch.expected,
        actual: mismatch.actual,
      });
  }
  if (expect.error !== undefined) {
    const mismatch = subsetMismatch(expect.error, result.error);
    if (mismatch)
      out.push({
        what: `${label} error${pointer(mismatch.at)}`,
        expected: mismatch.expected,
        actual: mismatch.actual,
      });
  }
  out.push(...pathMismatches(`${label} data`, expect, result.data));
  const data = result.data as { stdout?: unknown; stderr?: unknown } | undefined;
  for (const [what, pattern, text] of [
    ['text', expect.text, result.text],
    ['stdout', expect.stdout, data?.stdout],
    ['stderr', expect.stderr, data?.stderr],
  ] as const) {
    const mismatch = patternMismatch(`${label} ${what}`, pattern, text);
    if (mismatch) out.push(mismatch);
  }
  if (expect.maxDurationMs !== undefined && result.durationMs > expect.maxDurationMs) {
    out.push({
      what: `${label} duration (ms)`,
      expected: `≤ ${expect.maxDurationMs}`,
      actual: Math.round(result.durationMs),
    });
  }
  return out;
}
