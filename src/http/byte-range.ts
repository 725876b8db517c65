// HTTP conditional and partial GETs of one representation: If-None-Match against an ETag, and a single
// byte range (RFC 9110 §14). Several ranges, or a malformed header, are ignored (the whole file is sent),
// as the RFC allows; a range that starts past the end is 416.
import { toolgateError } from '../lib/errors.js';

export const etagOf = (sha256: string): string => `"${sha256}"`;

/** Whether If-None-Match names this ETag (weak or strong), or is "*". */
export function matchesNoneMatch(header: string | undefined, sha256: string): boolean {
  if (!header) return false;
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etagOf(sha256));
}

/** The inclusive byte span a Range header asks for; undefined: send everything. */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | undefined {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (match[1] === '') {
    // The last n bytes.
    const suffix = Number(match[2]);
    if (suffix === 0) throw unsatisfiable(size);
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    if (match[2] !== '' && Number(match[2]) < start) return undefined;
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size) throw unsatisfiable(size);
  return { start, end };
}

const unsatisfiable = (size: number) =>
  toolgateError('RANGE_NOT_SATISFIABLE', `The range is outside the file (${size} bytes)`, {
    suggestion: 'Ask for bytes within the file, e.g. "Range: bytes=0-1023".',
    headers: { 'content-range': `bytes */${size}` },
    details: { size },
  });
