// The safety rules every archive entry passes before anything of it is written: a name that stays
// inside the target (no absolute names, no "..", no NUL, sane lengths), only files, directories and
// symlinks whose target stays inside too (no hard links, devices, FIFOs), no second entry at a name, no
// entry below a symlink entry, and caps on entries, bytes and compression ratio. Pure: no I/O.
import path from 'node:path';
import { toolgateError } from '../../lib/errors.js';
import type { ArchiveLimits } from '../ops/transfer.js';

export type EntryKind = 'file' | 'directory' | 'symlink' | 'hardlink' | 'device' | 'fifo' | 'other';

export interface ArchiveEntry {
  readonly name: string;
  readonly kind: EntryKind;
  /** Symlink target (or hard link source). */
  readonly linkname?: string;
}

const MAX_NAME_BYTES = 4096;
const MAX_COMPONENT_BYTES = 255;
const clip = (text: string) => JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);

export const unsafeEntry = (message: string, name?: string) =>
  toolgateError('ARCHIVE_UNSAFE', message, {
    suggestion:
      'Nothing was written. Rebuild the archive with plain relative names, files, directories and symlinks that stay inside it.',
    ...(name !== undefined ? { details: { entry: name.slice(0, 500) } } : {}),
  });

export const overLimit = (what: string, limit: number, setting: string) =>
  toolgateError('ARCHIVE_TOO_LARGE', `The archive has more than ${limit} ${what}`, {
    suggestion: `Nothing was written. Split the archive, or ask the operator to raise archive.${setting}.`,
    details: { limit, setting: `archive.${setting}` },
  });

/** An entry's name as a clean relative path ("" for the archive's root), or ARCHIVE_UNSAFE. */
export function entryPath(name: string): string {
  if (name.includes('\0')) throw unsafeEntry(`Entry name ${clip(name)} contains a NUL byte`, name);
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) throw unsafeEntry('An entry name is too long', name);
  if (name.startsWith('/') || /^[A-Za-z]:[\\/]/.test(name))
    throw unsafeEntry(`Entry ${clip(name)} has an absolute name`, name);
  const parts = name.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.includes('..')) throw unsafeEntry(`Entry ${clip(name)} climbs out with ".."`, name);
  if (parts.some((part) => Buffer.byteLength(part) > MAX_COMPONENT_BYTES))
    throw unsafeEntry(`Entry ${clip(name)} has a name component over ${MAX_COMPONENT_BYTES} bytes`, name);
  return parts.join('/');
}

/** Checks the entries of one archive as they come, and keeps the running totals against the caps. */
export class EntryRules {
  private readonly kinds = new Map<string, 'file' | 'directory' | 'symlink'>();
  entries = 0;
  bytes = 0;
  files = 0;
  directories = 0;
  symlinks = 0;

  constructor(
    private readonly limits: ArchiveLimits,
    /** Bytes the workspace quota still allows (Infinity: no quota). */
    private readonly quotaAllowance: number,
  ) {}

  /** The entry's relative path, or a refusal; "" is the root directory itself (nothing to do). */
  admit(entry: ArchiveEntry): string {
    this.entries++;
    if (this.entries > this.limits.maxEntries)
      throw overLimit('entries', this.limits.maxEntries, 'maxEntries');
    const relative = entryPath(entry.name);
    const shown = clip(entry.name);
    switch (entry.kind) {
      case 'hardlink':
        throw unsafeEntry(`Entry ${shown} is a hard link; hard links are not extracted`, entry.name);
      case 'device':
        throw unsafeEntry(`Entry ${shown} is a device file`, entry.name);
      case 'fifo':
        throw unsafeEntry(`Entry ${shown} is a FIFO`, entry.name);
      case 'other':
        throw unsafeEntry(`Entry ${shown} is not a file, directory or symlink`, entry.name);
      default:
    }
    if (relative === '') {
      if (entry.kind === 'directory') return relative;
      throw unsafeEntry(`Entry ${shown} has no name`, entry.name);
    }
    if (entry.kind === 'symlink') this.checkLink(relative, entry.linkname ?? '', entry.name);
    const parts = relative.split('/');
    for (let depth = 1; depth < parts.length; depth++) {
      const parent = parts.slice(0, depth).join('/');
      const kind = this.kinds.get(parent);
      if (kind === 'symlink')
        throw unsafeEntry(`Entry ${shown} lies below the symlink entry "${parent}"`, entry.name);
      if (kind === 'file')
        throw unsafeEntry(`Entry ${shown} lies below the file entry "${parent}"`, entry.name);
      if (!kind) this.kinds.set(parent, 'directory');
    }
    const existing = this.kinds.get(relative);
    if (existing && !(existing === 'directory' && entry.kind === 'directory'))
      throw unsafeEntry(`Entry ${shown} appears twice in the archive`, entry.name);
    this.kinds.set(relative, entry.kind);
    if (entry.kind === 'file') this.files++;
    else if (entry.kind === 'directory') this.directories++;
    else this.symlinks++;
    return relative;
  }

  private checkLink(relative: string, linkname: string, name: string): void {
    if (linkname === '' || linkname.includes('\0'))
      throw unsafeEntry(`Symlink entry ${clip(name)} has no valid target`, name);
    if (linkname.startsWith('/'))
      throw unsafeEntry(`Symlink entry ${clip(name)} points to an absolute path`, name);
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(relative), linkname));
    if (resolved === '..' || resolved.startsWith('../'))
      throw unsafeEntry(`Symlink entry ${clip(name)} points outside the archive's directory`, name);
  }

  /** Counts extracted bytes; `compressedBytes` is what of the archive was read to produce them. */
  addBytes(count: number, compressedBytes: number): void {
    this.bytes += count;
    const { maxBytes, maxRatio, ratioFloorBytes } = this.limits;
    if (this.bytes > maxBytes) throw overLimit('bytes of content', maxBytes, 'maxBytes');
    if (this.bytes > this.quotaAllowance)
      throw toolgateError(
        'QUOTA_EXCEEDED',
        'Extracting the archive would grow the workspace past its quota',
        {
          suggestion: 'Nothing was written. Delete files that are no longer needed, or extract less.',
        },
      );
    if (this.bytes > ratioFloorBytes && this.bytes > maxRatio * Math.max(1, compressedBytes)) {
      throw toolgateError(
        'ARCHIVE_TOO_LARGE',
        `The archive expands more than ${maxRatio} times its compressed size (a decompression bomb?)`,
        {
          suggestion:
            'Nothing was written. Ask the operator to raise archive.maxRatio if the archive is genuine.',
          details: { limit: maxRatio, setting: 'archive.maxRatio' },
        },
      );
    }
  }
}
