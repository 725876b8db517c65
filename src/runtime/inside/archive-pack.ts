// Packing a subtree into a tar.gz or zip as a source (see ops/transfer.ts): the walk adds one entry at
// a time and waits while the archive's reader is behind, so memory stays flat whatever the tree's size.
// Symlinks are stored as symlinks (never followed), FIFOs, sockets and devices are left out, and so are
// transfer scratch files. With gitignore, .gitignore'd paths and .git are left out as well. tar.gz is
// made by the system's GNU tar when there is one (archive-tar.ts: the walk hands it the names), by
// tar-stream and zlib in this process otherwise; zip always by yazl.
import { once } from 'node:events';
import { constants, promises as fs, type Dirent, type Stats } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';
import yazl from 'yazl';
import { fromFsError, toolgateError } from '../../lib/errors.js';
import { SCRATCH_NAME } from './archive-extract.js';
import { startTar, systemTar } from './archive-tar.js';
import { GitignoreFilter } from './gitignore.js';
import type { ResolvedPath } from './paths.js';
import { readableSource, type SourceStream } from './streams.js';

const SMALL_FILE_BYTES = 512 * 1024;
const ATOMIC_TEMP = /^\..+\.tg-[0-9a-f]{12}\.tmp$/;
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

interface PackWriter {
  directory(name: string, stat: Stats): Promise<void>;
  symlink(name: string, target: string, stat: Stats): Promise<void>;
  file(name: string, absolute: string, stat: Stats): Promise<void>;
  end(): void;
  /** Ends the output with `err` (or, closing, without one). */
  fail(err?: Error): void;
  readonly output: Readable;
  /**
   * Set by a writer that reads the entries itself (system tar): the walk then hands it the names of
   * files, directories and symlinks as readdir typed them, with no stat of its own.
   */
  readonly named?: (name: string) => Promise<void>;
}

/** Readdir's type of an entry, when the file system told it. */
const typeOf = (entry: Dirent) =>
  entry.isDirectory()
    ? 'directory'
    : entry.isFile() || entry.isSymbolicLink()
      ? 'leaf'
      : entry.isFIFO() || entry.isSocket() || entry.isBlockDevice() || entry.isCharacterDevice()
        ? 'other'
        : 'unknown';

/** Opens what the walk saw as a regular file, refusing anything swapped in since. */
async function openFile(absolute: string): Promise<{ handle: fs.FileHandle; stat: Stats }> {
  const handle = await fs.open(absolute, OPEN_FLAGS);
  const stat = await handle.stat();
  if (!stat.isFile()) {
    await handle.close();
    throw Object.assign(new Error('not a regular file any more'), { code: 'EINVAL' });
  }
  return { handle, stat };
}

function tarGzWriter(signal: AbortSignal): PackWriter {
  const pack = tar.pack();
  // Large output chunks: each becomes part of a frame to the service, fewer and fuller is cheaper.
  const output = createGzip({ level: 6, chunkSize: 256 * 1024 });
  pack.pipe(output);
  // A failure reaches the reader through `output`; the pack's own error event would have no listener.
  pack.on('error', () => undefined);
  const add = (header: Partial<tar.Header> & { name: string }, body?: Buffer) =>
    new Promise<void>((resolve, reject) =>
      pack.entry(header, body ?? Buffer.alloc(0), (err) => (err ? reject(err) : resolve())),
    );
  return {
    output,
    directory: (name, stat) =>
      add({ name: `${name}/`, type: 'directory', mode: stat.mode & 0o7777, mtime: stat.mtime }),
    symlink: (name, target, stat) =>
      add({ name, type: 'symlink', linkname: target, mode: stat.mode & 0o7777, mtime: stat.mtime }),
    async file(name, absolute) {
      const { handle, stat } = await openFile(absolute);
      try {
        const header: Partial<tar.Header> & { name: string } = {
          name,
          type: 'file',
          size: stat.size,
          mode: stat.mode & 0o7777,
          mtime: stat.mtime,
        };
        // Small files (most of a source tree) in one read: a stream per file costs more than the file.
        if (stat.size <= SMALL_FILE_BYTES) {
          const bytes = Buffer.allocUnsafe(stat.size);
          const { bytesRead } = await handle.read(bytes, 0, stat.size, 0);
          if (bytesRead !== stat.size)
            throw Object.assign(new Error('file changed while packed'), { code: 'EIO' });
          return await add(header, bytes);
        }
        let settle!: (err?: Error | null) => void;
        const written = new Promise<void>((resolve, reject) => {
          settle = (err) => (err ? reject(err) : resolve());
        });
        const entry = pack.entry(header, settle);
        const content = handle.createReadStream({
          start: 0,
          end: stat.size - 1,
          autoClose: false,
          highWaterMark: 256 * 1024,
        });
        for await (const chunk of content) {
          if (!entry.write(chunk as Buffer)) await once(entry, 'drain', { signal });
        }
        entry.end(undefined as never);
        await written;
      } finally {
        await handle.close().catch(() => undefined);
      }
    },
    end: () => pack.finalize(),
    fail(err) {
      pack.destroy();
      output.destroy(err);
    },
  };
}

/** tar.gz by the system's tar: the walk only names the entries, tar reads and stores them. */
function systemTarWriter(tools: { tar: string; compressor: string }, directory: string): PackWriter {
  const tar = startTar(tools, directory);
  return {
    output: tar.output,
    named: (name) => tar.add(name),
    directory: (name) => tar.add(name),
    symlink: (name) => tar.add(name),
    file: (name) => tar.add(name),
    end: () => tar.end(),
    fail: (err) => tar.kill(err),
  };
}

function zipWriter(signal: AbortSignal): PackWriter {
  const zip = new yazl.ZipFile();
  const output = zip.outputStream as Readable;
  return {
    output,
    async directory(name, stat) {
      zip.addEmptyDirectory(`${name}/`, { mtime: stat.mtime, mode: stat.mode });
    },
    async symlink(name, target, stat) {
      zip.addBuffer(Buffer.from(target), name, { mtime: stat.mtime, mode: stat.mode, compress: false });
    },
    async file(name, absolute, stat) {
      zip.addReadStreamLazy(name, { mtime: stat.mtime, mode: stat.mode }, (done) => {
        openFile(absolute).then(
          ({ handle }) => done(null, handle.createReadStream({ highWaterMark: 256 * 1024 })),
          (err: Error) => done(err, undefined as never),
        );
      });
      // Entries are metadata until yazl reaches them; the walk waits while the output is not being read.
      while (output.readableLength > 4 * 1024 * 1024) await once(output, 'data', { signal });
    },
    end: () => zip.end(),
    fail: (err) => output.destroy(err),
  };
}

async function walk(
  writer: PackWriter,
  root: ResolvedPath,
  workspaceRoot: string,
  gitignore: boolean,
): Promise<void> {
  const filter = gitignore ? new GitignoreFilter(workspaceRoot, root.absolute) : undefined;
  const pending: Array<{ absolute: string; name: string }> = [{ absolute: root.absolute, name: '' }];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    const entries = await fs.readdir(dir.absolute, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: typeof pending = [];
    for (const entry of entries) {
      if (SCRATCH_NAME.test(entry.name) || ATOMIC_TEMP.test(entry.name)) continue;
      const absolute = path.join(dir.absolute, entry.name);
      const name = dir.name ? `${dir.name}/${entry.name}` : entry.name;
      if (filter && (entry.name === '.git' || filter.ignoredEntry(absolute, entry.isDirectory()))) continue;
      const type = writer.named ? typeOf(entry) : 'unknown';
      if (type !== 'unknown') {
        if (type === 'other') continue;
        await writer.named!(name);
        if (type === 'directory') subdirs.push({ absolute, name });
        continue;
      }
      const stat = await fs.lstat(absolute).catch(() => null);
      if (!stat) continue;
      if (stat.isDirectory()) {
        await writer.directory(name, stat);
        subdirs.push({ absolute, name });
      } else if (stat.isSymbolicLink()) {
        const target = await fs.readlink(absolute).catch(() => null);
        if (target !== null) await writer.symlink(name, target, stat);
      } else if (stat.isFile()) await writer.file(name, absolute, stat);
    }
    // Depth first, in name order: the stack takes the first subdirectory last.
    pending.push(...subdirs.reverse());
  }
}

function writerFor(
  format: 'tar.gz' | 'zip',
  packer: 'system' | 'tar-stream',
  directory: string,
  signal: AbortSignal,
): PackWriter {
  if (format === 'zip') return zipWriter(signal);
  const tools = packer === 'system' ? systemTar() : null;
  return tools ? systemTarWriter(tools, directory) : tarGzWriter(signal);
}

export async function packSource(
  root: ResolvedPath,
  workspaceRoot: string,
  format: 'tar.gz' | 'zip',
  gitignore: boolean,
  /** tar-stream forces the in-process tar.gz packer (tests compare the two). */
  packer: 'system' | 'tar-stream' = 'system',
): Promise<SourceStream> {
  const stat = await fs.stat(root.absolute).catch((err) => {
    throw fromFsError(err, root.relative);
  });
  const stop = new AbortController();
  // Entry names are relative to the directory packed, or for a single file, to the one holding it.
  const base = stat.isDirectory() ? root.absolute : path.dirname(root.absolute);
  const writer = writerFor(format, packer, base, stop.signal);
  const work = stat.isDirectory()
    ? walk(writer, root, workspaceRoot, gitignore)
    : stat.isFile()
      ? writer.file(path.basename(root.absolute), root.absolute, stat)
      : Promise.reject(toolgateError('NOT_A_FILE', `${root.relative} is not a file or directory`));
  work.then(
    () => writer.end(),
    (err: Error) => {
      if (!stop.signal.aborted)
        writer.fail(err.name === 'ToolgateError' ? err : fromFsError(err, root.relative));
    },
  );
  return readableSource(writer.output, async () => {
    stop.abort();
    writer.fail();
  });
}
