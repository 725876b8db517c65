// Text helpers shared by file tools: binary detection, BOM, line cutting, hashing.
import crypto from 'node:crypto';

const SAMPLE_BYTES = 8192;
export const MAX_LINE_CHARS = 2000;
export const UTF8_BOM = '\uFEFF';

/** Binary when the first 8 KiB contain a NUL byte (what git and ripgrep use too). */
export function looksBinary(sample: Uint8Array): boolean {
  return sample.subarray(0, SAMPLE_BYTES).includes(0);
}

// One-shot hashing (Node 20.12+) skips the Hash object a createHash() makes: it runs on every read and
// every authenticated request.
const oneShot = typeof crypto.hash === 'function';

export const sha256 = (data: string | Uint8Array): string =>
  oneShot ? crypto.hash('sha256', data) : crypto.createHash('sha256').update(data).digest('hex');

/** The SHA-256 digest as bytes. */
export const sha256Digest = (data: string | Uint8Array): Buffer =>
  oneShot ? crypto.hash('sha256', data, 'buffer') : crypto.createHash('sha256').update(data).digest();

/** Cuts an over-long line, saying how much was cut so the model knows the line goes on. */
export function cutLine(line: string, max = MAX_LINE_CHARS): { text: string; cut: boolean } {
  if (line.length <= max) return { text: line, cut: false };
  return { text: `${line.slice(0, max)}… [line truncated: ${line.length - max} more chars]`, cut: true };
}
