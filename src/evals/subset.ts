// "Does `actual` contain `expected`?" for JSON: objects match member by member (extra members in actual
// are fine), arrays element by element with the same length, everything else by equality. The answer
// is the first place that differs, as a JSON pointer, so a failure says where to look.
import { isJsonObject } from '../lib/json.js';

export interface SubsetMismatch {
  at: string;
  expected: unknown;
  actual: unknown;
}

export function subsetMismatch(expected: unknown, actual: unknown, at = ''): SubsetMismatch | undefined {
  if (isJsonObject(expected)) {
    if (!isJsonObject(actual)) return { at: at || '/', expected, actual };
    for (const [key, value] of Object.entries(expected)) {
      const inner = `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
      if (!Object.hasOwn(actual, key)) return { at: inner, expected: value, actual: undefined };
      const mismatch = subsetMismatch(value, actual[key], inner);
      if (mismatch) return mismatch;
    }
    return undefined;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length)
      return { at: at || '/', expected, actual };
    for (let i = 0; i < expected.length; i++) {
      const mismatch = subsetMismatch(expected[i], actual[i], `${at}/${i}`);
      if (mismatch) return mismatch;
    }
    return undefined;
  }
  return Object.is(expected, actual) || expected === actual ? undefined : { at: at || '/', expected, actual };
}

/** Deep equality of JSON values (a subset both ways). */
export const jsonEqual = (a: unknown, b: unknown): boolean =>
  subsetMismatch(a, b) === undefined && subsetMismatch(b, a) === undefined;
