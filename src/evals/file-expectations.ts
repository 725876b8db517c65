// The workspace files a case expects afterwards (exact content, a part, a pattern, a SHA-256, absence),
// checked against what GET /v1/sessions/{id}/files/<path> answered; and the cutting of long actual
// values, so a report stays readable.
import { sha256 } from '../lib/text.js';
import type { FileExpectation } from './case-schema.js';
import type { Mismatch } from './expectations.js';

const MAX_SHOWN = 4000;
/** Keeps a report readable: a long actual value is cut (strings) or summarised (JSON). */
export function clip(value: unknown): unknown {
  if (typeof value === 'string')
    return value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}… (${value.length} chars)` : value;
  const json = JSON.stringify(value);
  return json !== undefined && json.length > MAX_SHOWN
    ? `${json.slice(0, MAX_SHOWN)}… (${json.length} chars of JSON)`
    : value;
}

export function fileMismatches(
  file: string,
  want: FileExpectation,
  status: number,
  bytes: Buffer | undefined,
): Mismatch[] {
  const what = `file ${file}`;
  const spec = typeof want === 'string' ? { content: want } : want === null ? { absent: true } : want;
  if (spec.absent === true)
    return status === 404 ? [] : [{ what, expected: 'absent', actual: `exists (${status})` }];
  if (!bytes) return [{ what, expected: 'a file', actual: status === 404 ? 'absent' : `HTTP ${status}` }];
  const text = bytes.toString('utf8');
  const out: Mismatch[] = [];
  if (spec.absent === false) return out;
  if (spec.content !== undefined && text !== spec.content)
    out.push({ what, expected: spec.content, actual: clip(text) });
  if (spec.contains !== undefined && !text.includes(spec.contains))
    out.push({ what: `${what} contains`, expected: spec.contains, actual: clip(text) });
  if (spec.matches !== undefined && !new RegExp(spec.matches, 's').test(text))
    out.push({ what: `${what} matches`, expected: `/${spec.matches}/`, actual: clip(text) });
  if (spec.sha256 !== undefined && sha256(bytes) !== spec.sha256)
    out.push({ what: `${what} sha256`, expected: spec.sha256, actual: sha256(bytes) });
  return out;
}
