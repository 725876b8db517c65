// Archive extraction as a sink (see ops/transfer.ts): the body streams in, its format is told by its
// first bytes, and entries are written into a fresh staging directory inside the workspace, checked by
// EntryRules first. Symlink entries are made last, so no write ever passes through one. Only when the
// whole archive was read and admitted is the staging directory moved into place; any refusal removes it,
// so the workspace is left as it was.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { PassThrough } from 'node:stream';
import { toolgateError } from '../../lib/errors.js';
import { makeDirs } from '../../lib/make-dirs.js';
import type { ArchiveFormat, ArchiveLimits, ExtractResult } from '../ops/transfer.js';
import { EntryRules, overLimit } from './archive-entries.js';
import { placeExtracted } from './archive-place.js';
import { readZip, sniffFormat, SNIFF_BYTES, tarReader, type EntryWithContent } from './archive-read.js';
import type { OpContext } from './handler.js';
import type { ResolvedPath } from './paths.js';
import type { SinkStream } from './streams.js';

/** Names of transfer scratch files and directories at the workspace root (swept at runtime start). */
export const SCRATCH_NAME = /^\.tg-xfer-[0-9a-f]{12}\.tmp$/;
const scratchPath = (root: string) => path.join(root, `.tg-xfer-${randomBytes(6).toString('hex')}.tmp`);

export async function extractSink(
  target: ResolvedPath,
  limits: ArchiveLimits,
  { paths, usage, quotaBytes }: Pick<OpContext, 'paths' | 'usage' | 'quotaBytes'>,
): Promise<SinkStream> {
  const existing = await fs.stat(target.absolute).catch(() => null);
  if (existing && !existing.isDirectory()) {
    throw toolgateError('NOT_A_DIRECTORY', `${target.relative} is not a directory`, {
      suggestion: 'Extract into a directory (?path=), which is created when missing.',
    });
  }
  const allowance = quotaBytes > 0 ? quotaBytes - (await usage.current()).bytes : Infinity;
  const rules = new EntryRules(limits, allowance);
  const staging = scratchPath(paths.root);
  await fs.mkdir(staging, { mode: 0o700 });
  const symlinks: Array<{ at: string; linkname: string }> = [];
  let received = 0;
  let format: ArchiveFormat | undefined;
  const head: Buffer[] = [];
  let tarInput: { input: PassThrough; done: Promise<void> } | undefined;
  let failure: unknown;
  let zip: { file: string; handle: fs.FileHandle } | undefined;

  const made = new Set<string>();
  const ensureDir = async (dir: string) => {
    if (made.has(dir)) return;
    await makeDirs(dir);
    made.add(dir);
  };
  const onEntry = async (entry: EntryWithContent) => {
    const relative = rules.admit(entry);
    if (relative === '') return;
    const at = path.join(staging, relative);
    if (entry.kind === 'directory') await ensureDir(at);
    else if (entry.kind === 'symlink') symlinks.push({ at, linkname: entry.linkname! });
    else {
      if (format === 'zip') rules.addBytes(entry.size, received);
      await ensureDir(path.dirname(at));
      const handle = await fs.open(at, 'wx', (entry.mode & 0o777) | 0o600);
      try {
        for await (const chunk of entry.content!) {
          if (format !== 'zip') rules.addBytes((chunk as Buffer).length, received);
          await handle.write(chunk as Buffer);
        }
      } finally {
        await handle.close();
      }
    }
  };

  const start = async (first: Buffer) => {
    format = sniffFormat(first);
    if (format === 'zip') {
      const file = scratchPath(paths.root);
      zip = { file, handle: await fs.open(file, 'wx', 0o600) };
    } else {
      tarInput = tarReader(format === 'tar.gz', onEntry);
      tarInput.done.catch((err: unknown) => (failure = err));
    }
    await feed(first);
  };

  const feed = async (chunk: Buffer) => {
    if (failure !== undefined) throw failure;
    if (zip) {
      if (received > limits.maxBytes) throw overLimit('bytes', limits.maxBytes, 'maxBytes');
      await zip.handle.write(chunk);
    } else if (tarInput && !tarInput.input.write(chunk)) {
      await Promise.race([once(tarInput.input, 'drain'), tarInput.done]);
    }
  };

  const finishReading = async () => {
    if (!format) await start(Buffer.concat(head));
    if (tarInput) {
      tarInput.input.end();
      await tarInput.done;
    } else if (zip) {
      await zip.handle.close();
      await readZip(
        zip.file,
        (count) => {
          if (count > limits.maxEntries) throw overLimit('entries', limits.maxEntries, 'maxEntries');
        },
        onEntry,
      );
    }
  };

  const cleanUp = async () => {
    tarInput?.input.destroy();
    await zip?.handle.close().catch(() => undefined);
    if (zip) await fs.rm(zip.file, { force: true });
    await fs.rm(staging, { recursive: true, force: true });
  };

  return {
    kind: 'sink',
    async write(chunk) {
      received += chunk.length;
      if (format) return feed(chunk);
      head.push(chunk);
      if (received >= SNIFF_BYTES) await start(Buffer.concat(head.splice(0)));
    },
    async finish(): Promise<ExtractResult> {
      try {
        await finishReading();
        for (const { at, linkname } of symlinks) {
          await makeDirs(path.dirname(at));
          await fs.symlink(linkname, at);
        }
        await placeExtracted(staging, target.absolute, target.relative);
      } finally {
        usage.invalidate();
        await cleanUp();
      }
      return {
        relative: target.relative,
        format: format!,
        files: rules.files,
        directories: rules.directories,
        symlinks: rules.symlinks,
        bytes: rules.bytes,
      };
    },
    close: cleanUp,
  };
}
