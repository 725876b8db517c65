// A text file as the edit tools see it: BOM stripped, CRLF turned into LF for matching, and the
// original encoding details kept so the result is written back the way the file was (BOM, CRLF, mode).
import { toolgateError } from '../lib/errors.js';
import { looksBinary, sha256, UTF8_BOM } from '../lib/text.js';

export interface TextFile {
  /** False when the file does not exist yet. */
  readonly exists: boolean;
  /** Content with LF line endings and without a BOM. */
  readonly text: string;
  readonly bom: boolean;
  /** CRLF only when every line break in the file is CRLF; mixed files are edited as they are. */
  readonly crlf: boolean;
  /** Hash of the bytes on disk (empty string for a missing file). */
  readonly sha256: string;
  readonly mode: number | undefined;
}

export const MISSING_FILE: TextFile = {
  exists: false,
  text: '',
  bom: false,
  crlf: false,
  sha256: '',
  mode: undefined,
};

/** Decodes bytes into a TextFile; refuses binary content. */
export function decodeText(bytes: Buffer, displayPath: string, mode?: number): TextFile {
  if (looksBinary(bytes)) {
    throw toolgateError('BINARY_FILE', `${displayPath} is a binary file`, {
      suggestion: 'Binary files cannot be edited as text; use write_file to replace them.',
    });
  }
  let raw = bytes.toString('utf8');
  const bom = raw.startsWith(UTF8_BOM);
  if (bom) raw = raw.slice(1);
  const crlfCount = raw.split('\r\n').length - 1;
  const lfCount = raw.split('\n').length - 1;
  const crlf = crlfCount > 0 && crlfCount === lfCount;
  return {
    exists: true,
    text: crlf ? raw.replace(/\r\n/g, '\n') : raw,
    bom,
    crlf,
    sha256: sha256(bytes),
    mode,
  };
}

/** Edit strings may arrive with CRLF from some clients; matching happens on LF text. */
export const toLf = (text: string): string => text.replace(/\r\n/g, '\n');

/** The bytes to write for new LF text, in the original file's encoding. */
export function encodeText(file: Pick<TextFile, 'bom' | 'crlf'>, text: string): Buffer {
  const body = file.crlf ? text.replace(/\r?\n/g, '\r\n') : text;
  return Buffer.from(file.bom ? UTF8_BOM + body : body, 'utf8');
}
