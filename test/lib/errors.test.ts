// File-system errors become typed envelopes, never INTERNAL_ERROR: each errno a workspace operation can
// meet maps to a stable code and status (EXDEV was found by the race test as a 500).
import { describe, expect, it } from 'vitest';
import { fromFsError } from '../../src/lib/errors.js';

const errno = (code: string) => Object.assign(new Error(code), { code });

describe('fromFsError', () => {
  it.each([
    ['ENOENT', 'FILE_NOT_FOUND', 404],
    ['ELOOP', 'INVALID_PATH', 400],
    ['EXDEV', 'INVALID_PATH', 400],
    ['ENOSPC', 'INSUFFICIENT_STORAGE', 507],
    ['EDQUOT', 'INSUFFICIENT_STORAGE', 507],
  ])('%s → %s (%i)', (code, expected, status) => {
    const error = fromFsError(errno(code), 'd/a.txt');
    expect(error.code).toBe(expected);
    expect(error.statusCode).toBe(status);
    expect(error.message).toContain('d/a.txt');
  });

  // A workspace write also writes the service's own storage (the history's rows): its errors on the way
  // are that storage's (a full disk was a 500 "File operation failed … (SQLITE_FULL)").
  it.each([
    ['SQLITE_FULL', 'INSUFFICIENT_STORAGE', 507],
    ['SQLITE_BUSY', 'STORAGE_UNAVAILABLE', 503],
  ])('%s on the way → %s (%i) with a suggestion', (code, expected, status) => {
    const error = fromFsError(errno(code), 'd/a.txt');
    expect(error.code).toBe(expected);
    expect(error.statusCode).toBe(status);
    expect(error.suggestion).toBeTruthy();
  });
});
