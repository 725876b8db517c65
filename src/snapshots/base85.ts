// Git's base85 and the "GIT binary patch" literal hunk that `git apply` accepts: the content deflated
// (zlib), cut into lines of at most 52 bytes, each prefixed by its length (A-Z = 1-26, a-z = 27-52).
import { deflateSync } from 'node:zlib';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~';
const LINE_BYTES = 52;

export function base85(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 4) {
    // Big-endian 32-bit groups, zero-padded at the end, five digits each, most significant first.
    let value = 0;
    for (let j = 0; j < 4; j++) value = value * 256 + (bytes[i + j] ?? 0);
    const digits = new Array<string>(5);
    for (let k = 4; k >= 0; k--) {
      digits[k] = ALPHABET[value % 85];
      value = Math.floor(value / 85);
    }
    out += digits.join('');
  }
  return out;
}

const lengthChar = (n: number) => (n <= 26 ? String.fromCharCode(64 + n) : String.fromCharCode(96 + n - 26));

/** `literal <size>` followed by the encoded lines and a blank line. */
export function literalHunk(content: Uint8Array): string {
  const deflated = deflateSync(content);
  const lines = [`literal ${content.length}`];
  for (let i = 0; i < deflated.length; i += LINE_BYTES) {
    const chunk = deflated.subarray(i, i + LINE_BYTES);
    lines.push(lengthChar(chunk.length) + base85(chunk));
  }
  return `${lines.join('\n')}\n\n`;
}
