// Raw file uploads and downloads inside the runtime, as streams (see ops/transfer.ts). An upload goes
// to a temp file beside its target and is renamed over it only when complete, so a reader sees the old
// file or the new one and an upload cut short leaves nothing. Downloads read through one descriptor
// opened without following FIFOs or devices, so the bytes served are those of the file that was checked.
import { createHash } from 'node:crypto';
import { promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { toolgateError } from '../../lib/errors.js';
import { makeDirs } from '../../lib/make-dirs.js';
import type { UploadResult } from '../ops/transfer.js';
import { digestOf, rememberDigest } from './file-digests.js';
import { guard, lstatOrNull, moveMtimePast, tempPathFor } from './files.js';
import type { OpContext } from './handler.js';
import { entryType, notRegular, openRegular, toFileStat } from './stat.js';
import type { SinkStream, SourceStream } from './streams.js';

/** Opens an existing regular file and hashes it; FILE_NOT_FOUND / NOT_A_FILE otherwise. */
export async function openWithDigest(absolute: string, relative: string, signal?: AbortSignal) {
  const { handle, stat } = await guard(relative, () => openRegular(absolute, relative));
  try {
    return { handle, stat, sha256: await digestOf(handle, stat, signal) };
  } catch (err) {
    await handle.close().catch(() => undefined);
    throw err;
  }
}

export async function fileSource(
  absolute: string,
  relative: string,
  range: { start?: number; end?: number },
  signal: AbortSignal,
): Promise<{ source: SourceStream; stat: Stats; sha256: string }> {
  const { handle, stat, sha256 } = await openWithDigest(absolute, relative, signal);
  let position = range.start ?? 0;
  const end = Math.min(range.end ?? stat.size - 1, stat.size - 1);
  const source: SourceStream = {
    kind: 'source',
    async read(maxBytes) {
      const want = Math.max(0, Math.min(maxBytes, end - position + 1));
      if (want === 0) return { chunk: Buffer.alloc(0), eof: true };
      const chunk = Buffer.allocUnsafe(want);
      const { bytesRead } = await handle.read(chunk, 0, want, position);
      position += bytesRead;
      // A file truncated meanwhile ends early rather than hanging.
      return { chunk: chunk.subarray(0, bytesRead), eof: bytesRead < want || position > end };
    },
    close: () => handle.close(),
  };
  return { source, stat, sha256 };
}

const tooLarge = (limit: number) =>
  toolgateError('BODY_TOO_LARGE', `The upload is larger than ${limit} bytes`, {
    suggestion: 'Upload a smaller file, or ask the operator to raise limits.uploadMaxBytes.',
    details: { limit },
  });

const overQuota = (relative: string, used: number, quota: number) =>
  toolgateError(
    'QUOTA_EXCEEDED',
    `Uploading ${relative} would grow the workspace past its quota of ${quota} bytes`,
    {
      suggestion: 'Delete files that are no longer needed, or upload less.',
      details: { usedBytes: used, limitBytes: quota },
    },
  );

/** Refuses a change when the file is not the version the caller expected ("" = must not exist). */
export function checkExpected(relative: string, expected: string | undefined, actual: string | null): void {
  if (expected === undefined || expected.toLowerCase() === (actual ?? '')) return;
  throw toolgateError('CONFLICT', `${relative} is not the version you expected (expected_sha256 differs)`, {
    suggestion: 'Fetch the file again (its ETag is its SHA-256) and retry with that value.',
    details: { expected: expected.toLowerCase() || null, actual },
  });
}

/** An upload's sink, with the descriptor of its temp file and the most bytes it may take. */
export type UploadSink = SinkStream & { readonly fd: number; readonly allowance: number };

export async function fileSink(
  absolute: string,
  relative: string,
  args: { expectedSha256?: string; maxBytes: number },
  { usage, quotaBytes }: Pick<OpContext, 'usage' | 'quotaBytes'>,
): Promise<UploadSink> {
  if (relative === '.') throw toolgateError('NOT_A_FILE', 'Cannot write to the workspace root');
  const previous = await lstatOrNull(absolute);
  if (previous && !previous.isFile()) throw notRegular(relative, entryType(previous));
  let current: string | null = null;
  if (previous && args.expectedSha256 !== undefined) {
    const opened = await openWithDigest(absolute, relative);
    await opened.handle.close();
    current = opened.sha256;
  }
  checkExpected(relative, args.expectedSha256, current);
  let allowance = args.maxBytes;
  let used = 0;
  if (quotaBytes > 0) {
    used = (await usage.current()).bytes;
    allowance = Math.min(allowance, quotaBytes - used + (previous?.size ?? 0));
  }
  await guard(relative, () => makeDirs(path.dirname(absolute)));
  const temp = tempPathFor(absolute);
  const keepMode = previous ? previous.mode & 0o7777 : 0o644;
  // Readable too: an upload the service wrote itself is hashed by reading it back (syncAndHashAdopted).
  const handle = await guard(relative, () => fs.open(temp, 'wx+', keepMode));
  const hash = createHash('sha256');
  let written = 0;
  /** Set when the service wrote the bytes itself (adopt): the file is then hashed here, at the end. */
  let adopted = false;
  let closed = false;
  const drop = async () => {
    if (closed) return;
    closed = true;
    await handle.close().catch(() => undefined);
    await fs.rm(temp, { force: true });
  };
  /**
   * Bytes written past this process: the file must hold exactly as many as the service said it wrote (a
   * command that appended to the temp file meanwhile, or a short write, fails the upload). The hash is of
   * what the file holds, read back from the page cache while the disk syncs.
   */
  const syncAndHashAdopted = async (): Promise<string> => {
    const stat = await handle.stat();
    if (stat.size !== written) {
      throw toolgateError('CONFLICT', `${relative} changed while it was being uploaded`, {
        suggestion: 'Upload it again.',
      });
    }
    const [, sha256] = await Promise.all([handle.sync(), digestOf(handle, stat)]);
    return sha256;
  };
  const refuseBeyondAllowance = () => {
    if (written > allowance) {
      throw written > args.maxBytes ? tooLarge(args.maxBytes) : overQuota(relative, used, quotaBytes);
    }
  };
  return {
    kind: 'sink',
    fd: handle.fd,
    allowance,
    accept(chunk) {
      written += chunk.length;
      refuseBeyondAllowance();
      hash.update(chunk);
    },
    adopt({ bytes }) {
      if (written > 0 || adopted)
        throw toolgateError('BAD_REQUEST', 'The upload was already fed through the stream');
      written = bytes;
      refuseBeyondAllowance();
      adopted = true;
    },
    async write(chunk) {
      await guard(relative, () => handle.write(chunk));
    },
    async finish(): Promise<UploadResult> {
      let sha256: string | undefined;
      try {
        await guard(relative, async () => {
          if (adopted) sha256 = await syncAndHashAdopted();
          else await handle.sync();
          await handle.chmod(keepMode);
          await moveMtimePast(handle, previous);
          await handle.close();
          closed = true;
          await fs.rename(temp, absolute);
        });
      } catch (err) {
        closed = false;
        await drop();
        throw err;
      }
      const stat = await fs.stat(absolute);
      sha256 ??= hash.digest('hex');
      rememberDigest(stat, sha256);
      usage.adjust(stat.size - (previous?.size ?? 0), previous ? 0 : 1);
      return { relative, created: previous === null, stat: toFileStat(stat), sha256, bytes: written };
    },
    close: drop,
  };
}
