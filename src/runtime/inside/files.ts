// Single-path file operations, inside the runtime. Errors are ToolgateErrors naming the relative path.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsync,
  futimesSync,
  lstatSync,
  openSync,
  promises as fs,
  read,
  readSync,
  renameSync,
  rmSync,
  statSync,
  write,
  writeSync,
  type Stats,
} from 'node:fs';
import { promisify } from 'node:util';
import path from 'node:path';
import { fromFsError, toolgateError } from '../../lib/errors.js';
import { sha256 } from '../../lib/text.js';
import type { FileOps } from '../ops/files.js';
import { reply, type Handlers } from './handler.js';
import { entryType, notRegular, toFileStat } from './stat.js';
import { makeDirs } from '../../lib/make-dirs.js';

export const lstatOrNull = (absolute: string): Promise<Stats | null> => fs.lstat(absolute).catch(() => null);
export const lstatSyncOrNull = (absolute: string): Stats | null => {
  try {
    return lstatSync(absolute);
  } catch {
    return null;
  }
};

/**
 * Small files are read and written with synchronous calls: for them a thread-pool round trip per open,
 * fstat, read or write and close costs more than the work itself, and the runtime serves one session, so
 * a bounded block of its loop delays nobody else. Larger files go asynchronously, in chunks, on the same
 * descriptor.
 */
const SYNC_IO_BYTES = 256 * 1024;
const readAsync = promisify(read);
const writeAsync = promisify(write);
const fsyncAsync = promisify(fsync);

function writeAllSync(fd: number, data: Uint8Array): void {
  for (let done = 0; done < data.length;) done += writeSync(fd, data, done, data.length - done);
}

async function writeAllAsync(fd: number, data: Uint8Array): Promise<void> {
  for (let done = 0; done < data.length;) {
    done += (await writeAsync(fd, data, done, data.length - done)).bytesWritten;
  }
}

/**
 * Reads a whole regular file through one descriptor. O_NONBLOCK makes opening a FIFO return at once
 * instead of waiting for a writer; the type is then checked on the descriptor, so whatever was swapped
 * in under the name, what we read is what we checked.
 */
export async function readRegular(
  absolute: string,
  relative: string,
  maxBytes: number,
): Promise<{ bytes: Buffer; stat: Stats }> {
  let fd: number;
  try {
    fd = openSync(absolute, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    throw fromFsError(err as NodeJS.ErrnoException, relative);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw notRegular(relative, entryType(stat));
    if (stat.size > maxBytes) {
      throw toolgateError('FILE_TOO_LARGE', `${relative} is ${stat.size} bytes; the limit is ${maxBytes}`, {
        suggestion: 'Use grep to find the lines you need, or read a smaller file.',
        details: { size: stat.size, limit: maxBytes },
      });
    }
    const bytes =
      stat.size <= SYNC_IO_BYTES
        ? readAllSync(fd, stat.size, maxBytes)
        : await readAll(fd, stat.size, maxBytes);
    if (bytes.length > maxBytes) {
      throw toolgateError(
        'FILE_TOO_LARGE',
        `${relative} grew past the limit of ${maxBytes} bytes while read`,
        {
          details: { size: bytes.length, limit: maxBytes },
        },
      );
    }
    return { bytes, stat };
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads to end of file, which may come before or after `expected` bytes if the file changes meanwhile;
 * stops once more than `cap` bytes were read (the caller refuses that). The first read asks for one byte
 * more than expected: a read of a regular file comes back short only at its end, so for a file that did
 * not grow that one read is the whole job (no second read, no spare buffer, just to see the end).
 */
function readAllSync(fd: number, expected: number, cap: number): Buffer {
  const first = Buffer.allocUnsafe(expected + 1);
  const n = readSync(fd, first, 0, first.length, null);
  if (n < first.length) return first.subarray(0, n);
  // It grew: read on, in chunks, to its new end.
  const chunks: Buffer[] = [first];
  for (let total = n; total <= cap;) {
    const chunk = Buffer.allocUnsafe(64 * 1024);
    const read = readSync(fd, chunk, 0, chunk.length, null);
    if (read === 0) break;
    chunks.push(chunk.subarray(0, read));
    total += read;
  }
  return Buffer.concat(chunks);
}

/** As readAllSync, through the thread pool (large files). */
async function readAll(fd: number, expected: number, cap: number): Promise<Buffer> {
  const first = Buffer.allocUnsafe(expected + 1);
  const { bytesRead } = await readAsync(fd, first, 0, first.length, null);
  if (bytesRead < first.length) return first.subarray(0, bytesRead);
  const chunks: Buffer[] = [first];
  for (let total = bytesRead; total <= cap;) {
    const chunk = Buffer.allocUnsafe(1024 * 1024);
    const { bytesRead: read } = await readAsync(fd, chunk, 0, chunk.length, null);
    if (read === 0) break;
    chunks.push(chunk.subarray(0, read));
    total += read;
  }
  return Buffer.concat(chunks);
}

/** The temp file of an atomic write beside `absolute` (swept at start if a crash left it behind). */
export const tempPathFor = (absolute: string): string =>
  path.join(path.dirname(absolute), `.${path.basename(absolute)}.tg-${randomBytes(6).toString('hex')}.tmp`);

/**
 * Caches keyed on (mtime in whole seconds, size) must see a change: a replacement's mtime never reuses
 * the replaced file's second.
 */
export async function moveMtimePast(handle: fs.FileHandle, previous: Stats | null): Promise<void> {
  const later = mtimePast(previous, (await handle.stat()).mtimeMs);
  if (later) await handle.utimes(new Date(), later);
}

/**
 * The mtime that moves past a replaced file's second, or null when the new file's own mtime (set by its
 * last write, read back rather than taken from the clock afterwards: the clock may have passed the next
 * second since) already has.
 */
function mtimePast(previous: Stats | null, writtenMs: number): Date | null {
  if (!previous?.isFile()) return null;
  const second = Math.floor(previous.mtimeMs / 1000);
  return Math.floor(writtenMs / 1000) <= second ? new Date((second + 1) * 1000) : null;
}

/**
 * Atomic replacement: temp file beside the target, fsync, rename over it. A crash leaves the old file or
 * the new one. Keeps the old mode, and moves the mtime past the old one when the clock has not.
 *
 * The metadata calls (lstat, mkdir, open, chmod, utimes, close, rename, stat) are synchronous, as is a
 * small file's data (SYNC_IO_BYTES): each is a few microseconds of kernel work, where a thread-pool round
 * trip per call cost about a tenth of a millisecond here, ten of them per write. The data of a large file
 * and the fsync, which can wait on the disk, stay off the loop.
 */
export async function writeAtomic(
  absolute: string,
  data: Uint8Array,
  mode: number | undefined,
  previous: Stats | null = lstatSyncOrNull(absolute),
): Promise<{ created: boolean; stat: Stats }> {
  const keepMode = mode ?? (previous?.isFile() ? previous.mode & 0o7777 : undefined);
  await makeDirs(path.dirname(absolute));
  const temp = tempPathFor(absolute);
  const fd = openSync(temp, 'wx', keepMode ?? 0o644);
  try {
    if (data.length <= SYNC_IO_BYTES) writeAllSync(fd, data);
    else await writeAllAsync(fd, data);
    await fsyncAsync(fd);
    // The mode given at open is masked by the umask; this sets it exactly.
    if (keepMode !== undefined) fchmodSync(fd, keepMode);
    const later = mtimePast(previous, fstatSync(fd).mtimeMs);
    if (later) futimesSync(fd, new Date(), later);
  } catch (err) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(temp, absolute);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  return { created: previous === null, stat: statSync(absolute) };
}

export const guard = async <T>(relative: string, work: () => Promise<T>): Promise<T> => {
  try {
    return await work();
  } catch (err) {
    if (err instanceof Error && err.name === 'ToolgateError') throw err;
    throw fromFsError(err, relative);
  }
};

export const fileHandlers: Handlers<FileOps> = {
  async resolve({ path: input, followFinalSymlink }, _payload, { paths }) {
    const { relative } = await paths.resolve(input, { followFinalSymlink });
    return reply({ relative });
  },

  async stat({ path: input, follow = true }, _payload, { paths }) {
    const target = await paths.resolve(input, { followFinalSymlink: follow });
    const stat = await (follow ? fs.stat(target.absolute) : fs.lstat(target.absolute)).catch(() => null);
    const linkTarget = stat?.isSymbolicLink()
      ? await fs.readlink(target.absolute).catch(() => undefined)
      : undefined;
    return reply({
      relative: target.relative,
      stat: stat && toFileStat(stat),
      ...(linkTarget !== undefined ? { linkTarget } : {}),
    });
  },

  async readFile({ path: input, maxBytes, followFinalSymlink }, _payload, { paths }) {
    const target = await paths.resolve(input, { followFinalSymlink });
    const { bytes, stat } = await readRegular(target.absolute, target.relative, maxBytes);
    return reply({ relative: target.relative, stat: toFileStat(stat), sha256: sha256(bytes) }, bytes);
  },

  async hashFile({ path: input }, _payload, { paths }) {
    const target = await paths.resolve(input);
    const stat = await lstatOrNull(target.absolute);
    if (!stat?.isFile()) return reply({ relative: target.relative, sha256: null });
    const { bytes } = await guard(target.relative, () =>
      readRegular(target.absolute, target.relative, Number.MAX_SAFE_INTEGER),
    );
    return reply({ relative: target.relative, sha256: sha256(bytes) });
  },

  async writeFile({ path: input, mode }, payload, { paths, usage }) {
    const target = await paths.resolve(input);
    if (target.relative === '.') throw toolgateError('NOT_A_FILE', 'Cannot write to the workspace root');
    const existing = lstatSyncOrNull(target.absolute);
    if (existing && !existing.isFile()) throw notRegular(target.relative, entryType(existing));
    const { created, stat } = await guard(target.relative, () =>
      writeAtomic(target.absolute, payload, mode, existing),
    );
    usage.adjust(stat.size - (existing?.size ?? 0), created ? 1 : 0);
    return reply({ relative: target.relative, created, stat: toFileStat(stat) });
  },

  async mkdir({ path: input }, _payload, { paths }) {
    const target = await paths.resolve(input);
    const existing = await fs.stat(target.absolute).catch(() => null);
    if (existing) {
      if (!existing.isDirectory())
        throw toolgateError('ALREADY_EXISTS', `${target.relative} exists and is not a directory`);
      return reply({ relative: target.relative, created: false });
    }
    await guard(target.relative, () => makeDirs(target.absolute));
    return reply({ relative: target.relative, created: true });
  },

  async remove({ path: input, recursive = false }, _payload, { paths, usage }) {
    const target = await paths.resolve(input, { followFinalSymlink: false });
    if (target.relative === '.')
      throw toolgateError('PERMISSION_DENIED', 'The workspace root cannot be removed');
    const stat = await lstatOrNull(target.absolute);
    if (!stat) return reply({ relative: target.relative, existed: false });
    await guard(target.relative, () =>
      stat.isDirectory()
        ? recursive
          ? fs.rm(target.absolute, { recursive: true, force: true })
          : fs.rmdir(target.absolute)
        : fs.unlink(target.absolute),
    );
    if (stat.isFile()) usage.adjust(-stat.size, -1);
    else if (stat.isDirectory()) usage.invalidate();
    return reply({ relative: target.relative, existed: true });
  },

  async rename({ from, to }, _payload, { paths, usage }) {
    const source = await paths.resolve(from, { followFinalSymlink: false });
    const destination = await paths.resolve(to, { followFinalSymlink: false });
    if (source.relative === '.' || destination.relative === '.') {
      throw toolgateError('PERMISSION_DENIED', 'The workspace root cannot be moved or replaced');
    }
    await guard(destination.relative, async () => {
      await makeDirs(path.dirname(destination.absolute));
      const replaced = await lstatOrNull(destination.absolute);
      await fs.rename(source.absolute, destination.absolute);
      if (replaced) usage.invalidate();
    });
    return reply({ from: source.relative, to: destination.relative });
  },

  async symlink({ target, path: input }, _payload, { paths }) {
    const at = await paths.resolve(input, { followFinalSymlink: false });
    await guard(at.relative, async () => {
      await makeDirs(path.dirname(at.absolute));
      await fs.symlink(target, at.absolute);
    });
    return reply({ relative: at.relative });
  },

  async chmod({ path: input, mode }, _payload, { paths }) {
    const target = await paths.resolve(input);
    await guard(target.relative, () => fs.chmod(target.absolute, mode & 0o7777));
    return reply({ relative: target.relative });
  },

  async readdir({ path: input }, _payload, { paths }) {
    const target = await paths.resolve(input);
    const entries = await guard(target.relative, () => fs.readdir(target.absolute, { withFileTypes: true }));
    return reply({
      relative: target.relative,
      entries: entries.map((e) => ({ name: e.name, type: entryType(e) })),
    });
  },

  async usage(_args, _payload, { usage }) {
    return reply(await usage.current());
  },

  async clear(_args, _payload, { paths, usage }) {
    usage.invalidate();
    const entries = await fs.readdir(paths.root).catch(() => [] as string[]);
    for (const name of entries) await fs.rm(path.join(paths.root, name), { recursive: true, force: true });
    return reply({ removed: entries.length });
  },

  ping() {
    const usage = process.resourceUsage();
    return reply({
      rssBytes: process.memoryUsage.rss(),
      cpuUserMs: Math.round(usage.userCPUTime / 1000),
      cpuSystemMs: Math.round(usage.systemCPUTime / 1000),
    });
  },
};
