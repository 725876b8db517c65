// Reading the entries of an uploaded archive: tar (plain or gzip'd) as a stream, zip from a temp file
// (its directory is at the end). Each entry is handed to `onEntry` with a way to read its content; the
// format is told by the first bytes, whatever the caller said it was.
import { PassThrough, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import yauzl from 'yauzl';
import { toolgateError } from '../../lib/errors.js';
import type { ArchiveFormat } from '../ops/transfer.js';
import { unsafeEntry, type ArchiveEntry, type EntryKind } from './archive-entries.js';

export interface EntryWithContent extends ArchiveEntry {
  readonly mode: number;
  /** Declared content size (files). */
  readonly size: number;
  /** The content (files only); must be consumed before the next entry comes. */
  readonly content?: AsyncIterable<unknown>;
}

export type OnEntry = (entry: EntryWithContent) => Promise<void>;

/** Bytes needed to tell the formats apart (the ustar magic sits at 257). */
export const SNIFF_BYTES = 512;

export function sniffFormat(head: Buffer): ArchiveFormat {
  if (head[0] === 0x1f && head[1] === 0x8b) return 'tar.gz';
  if (
    head[0] === 0x50 &&
    head[1] === 0x4b &&
    (head[2] === 3 || head[2] === 5) &&
    (head[3] === 4 || head[3] === 6)
  )
    return 'zip';
  if (head.length >= 262 && head.toString('latin1', 257, 262) === 'ustar') return 'tar';
  // An empty tar is zero blocks; an old (v7) tar has no magic but a valid header checksum.
  if (head.length >= 512 && (head.every((byte) => byte === 0) || v7Checksum(head))) return 'tar';
  throw toolgateError('UNSUPPORTED_MEDIA_TYPE', 'The body is not a tar, tar.gz or zip archive', {
    suggestion: 'Send the archive file itself as the body (its format is recognised from its first bytes).',
  });
}

function v7Checksum(head: Buffer): boolean {
  const stored = parseInt(head.toString('latin1', 148, 156).replace(/[\0 ]+$/, ''), 8);
  if (!Number.isFinite(stored)) return false;
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : head[i];
  return sum === stored;
}

const TAR_KINDS: Record<string, EntryKind> = {
  file: 'file',
  'contiguous-file': 'file',
  directory: 'directory',
  symlink: 'symlink',
  link: 'hardlink',
  'character-device': 'device',
  'block-device': 'device',
  fifo: 'fifo',
};

const isSystemCallError = (err: Error): boolean => typeof (err as NodeJS.ErrnoException).syscall === 'string';

const invalid = (format: string, err: unknown) =>
  toolgateError(
    'ARCHIVE_INVALID',
    `The ${format} archive is damaged or truncated (${(err as Error).message})`,
    {
      suggestion: 'Nothing was written. Check the archive (e.g. tar tzf / unzip -l) and upload it again.',
    },
  );

/** A tar reader fed by writing to `input`; `done` settles when every entry was handled (or one failed). */
export function tarReader(gzipped: boolean, onEntry: OnEntry): { input: PassThrough; done: Promise<void> } {
  const input = new PassThrough({ highWaterMark: 1024 * 1024 });
  const extract = tar.extract();
  const format = gzipped ? 'tar.gz' : 'tar';
  const done = (async () => {
    const source: Readable = gzipped ? input.pipe(createGunzip()) : input;
    // Failures are reported once, through `done`; later errors of torn-down streams are expected.
    input.on('error', () => undefined);
    source.on('error', () => undefined);
    const failed = new Promise<never>((_, reject) => {
      input.once('error', reject);
      source.once('error', (err) => reject(invalid(format, err)));
    });
    failed.catch(() => undefined);
    source.pipe(extract);
    const entries = (async () => {
      try {
        for await (const entry of extract) {
          const { header } = entry;
          const kind = TAR_KINDS[header.type ?? 'file'] ?? 'other';
          await onEntry({
            name: header.name,
            kind,
            linkname: header.linkname ?? undefined,
            mode: header.mode ?? 0o644,
            size: header.size ?? 0,
            ...(kind === 'file' ? { content: entry } : {}),
          });
          entry.resume();
        }
      } catch (err) {
        // A write of an entry failing (a full disk) is the disk's error, not a damaged archive.
        if (err instanceof Error && (err.name === 'ToolgateError' || isSystemCallError(err))) throw err;
        throw invalid(format, err);
      }
    })();
    await Promise.race([entries, failed]);
  })();
  done.catch(() => {
    input.destroy();
    extract.destroy();
  });
  return { input, done };
}

const ZIP_TYPES: Record<number, EntryKind> = {
  0o120000: 'symlink',
  0o040000: 'directory',
  0o020000: 'device',
  0o060000: 'device',
  0o010000: 'fifo',
  0o140000: 'other',
};

const openZip = (file: string) =>
  new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: true, validateEntrySizes: true }, (err, zip) =>
      err ? reject(invalid('zip', err)) : resolve(zip),
    ),
  );

const openEntry = (zip: yauzl.ZipFile, entry: yauzl.Entry) =>
  new Promise<Readable>((resolve, reject) =>
    zip.openReadStream(entry, (err, stream) => (err ? reject(invalid('zip', err)) : resolve(stream))),
  );

/** Reads the zip at `file`; `beforeEntries` sees the entry count from the central directory first. */
export async function readZip(
  file: string,
  beforeEntries: (count: number) => void,
  onEntry: OnEntry,
): Promise<void> {
  const zip = await openZip(file);
  try {
    beforeEntries(zip.entryCount);
    for (;;) {
      const next = new Promise<yauzl.Entry | null>((resolve, reject) => {
        zip.once('entry', resolve);
        zip.once('end', () => resolve(null));
        zip.once('error', (err: Error) =>
          reject(
            /invalid (relative path|characters)|absolute path/i.test(err.message)
              ? unsafeEntry(`Zip entry refused: ${err.message}`)
              : invalid('zip', err),
          ),
        );
      });
      zip.readEntry();
      const entry = await next;
      zip.removeAllListeners('entry').removeAllListeners('end').removeAllListeners('error');
      if (!entry) return;
      const unixMode = (entry.externalFileAttributes >>> 16) & 0xffff;
      const kind: EntryKind = entry.fileName.endsWith('/')
        ? 'directory'
        : (ZIP_TYPES[unixMode & 0o170000] ?? 'file');
      if (entry.generalPurposeBitFlag & 1)
        throw unsafeEntry(`Zip entry ${entry.fileName} is encrypted`, entry.fileName);
      const base = { name: entry.fileName, mode: unixMode & 0o7777 || 0o644, size: entry.uncompressedSize };
      if (kind === 'symlink') {
        if (entry.uncompressedSize > 4096)
          throw unsafeEntry(`Symlink entry ${entry.fileName} has an over-long target`);
        const chunks: Buffer[] = [];
        for await (const chunk of await openEntry(zip, entry)) chunks.push(chunk as Buffer);
        await onEntry({ ...base, kind, linkname: Buffer.concat(chunks).toString('utf8') });
      } else if (kind === 'file') {
        const content = await openEntry(zip, entry);
        try {
          await onEntry({ ...base, kind, content });
        } finally {
          content.destroy();
        }
      } else await onEntry({ ...base, kind });
    }
  } finally {
    zip.close();
  }
}
