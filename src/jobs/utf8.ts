// Cutting UTF-8 byte ranges without splitting a character: output is cut by bytes (caps, offsets) but
// returned as text.

const isContinuation = (byte: number) => (byte & 0xc0) === 0x80;

/** Length of the longest prefix of `buf` that does not end inside a multi-byte character. */
export function completePrefixLength(buf: Buffer): number {
  let i = buf.length;
  // Walk back over at most 3 continuation bytes to the lead byte of the last character.
  let back = 0;
  while (i > 0 && back < 4 && isContinuation(buf[i - 1])) {
    i--;
    back++;
  }
  if (i === 0) return buf.length;
  const lead = buf[i - 1];
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return back + 1 >= need ? buf.length : i - 1;
}

/** Index of the first byte of `buf` that starts a character (skips a cut character's tail). */
export function firstCharStart(buf: Buffer): number {
  let i = 0;
  while (i < buf.length && i < 3 && isContinuation(buf[i])) i++;
  return i;
}
