// The error code a synchronous call throws (undefined when it returns), for unit tests of the engines.
import { isToolgateError } from '../../src/lib/errors.js';

export const errorCodeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    return isToolgateError(err) ? err.code : 'not a ToolgateError';
  }
  return undefined;
};
