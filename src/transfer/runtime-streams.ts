// The service's side of a runtime transfer stream (see runtime/ops/transfer.ts): a request body pumped
// into the runtime in chunks of about a megabyte (or, for a file upload, written straight into the file
// the runtime opened: uploadFile), and a Readable that pulls a download out of it chunk by chunk. Up to WRITES_IN_FLIGHT chunks of an upload are in flight at a time: the service keeps reading
// the client while the runtime (another process, maybe waiting for a CPU on a busy machine) catches up,
// and no more than that window ever piles up in the runtime.
import type { promises as fs } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fromFsError } from '../lib/errors.js';
import type { OpArgs, OpResult } from '../runtime/ops/index.js';
import type { Workspace } from '../runtime/workspace.js';

export const CHUNK_BYTES = 1024 * 1024;
/** Writes a pump may have outstanding at once (8 MB): with 2, the upload stalled on every runtime wake-up. */
const WRITES_IN_FLIGHT = 8;

/** Sends every byte of `body` to the runtime stream `stream`, in order, counting them in `sent.bytes`. */
export async function pumpInto(
  workspace: Workspace,
  stream: number,
  body: AsyncIterable<Buffer | Uint8Array | string>,
  sent: { bytes: number } = { bytes: 0 },
): Promise<number> {
  const inFlight: Promise<unknown>[] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let total = 0;
  const send = async () => {
    const chunk = pending.length === 1 ? pending[0] : Buffer.concat(pending);
    pending = [];
    pendingBytes = 0;
    const write = workspace.call('streamWrite', { stream }, chunk);
    write.catch(() => undefined);
    inFlight.push(write);
    if (inFlight.length >= WRITES_IN_FLIGHT) await inFlight.shift();
  };
  for await (const piece of body) {
    const bytes =
      typeof piece === 'string'
        ? Buffer.from(piece)
        : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    pending.push(bytes);
    pendingBytes += bytes.length;
    total += bytes.length;
    sent.bytes = total;
    if (pendingBytes >= CHUNK_BYTES) await send();
  }
  if (pendingBytes > 0) await send();
  await Promise.all(inFlight);
  return total;
}

/**
 * The runtime stream `stream` as a Readable, one chunk fetched ahead. Destroying it (a client that went
 * away) closes the runtime stream; `onEnd` learns how many bytes went out and whether all of them did.
 */
export function pullFrom(
  workspace: Workspace,
  stream: number,
  onEnd: (bytes: number, complete: boolean, error?: unknown) => void,
): Readable {
  let bytes = 0;
  let finished = false;
  const read = () => workspace.call('streamRead', { stream, maxBytes: CHUNK_BYTES });
  let next: ReturnType<typeof read> | undefined;
  const readable = new Readable({
    highWaterMark: CHUNK_BYTES,
    async read() {
      try {
        // An empty chunk that is not the end would leave the stream waiting: fetch on until data or eof.
        for (;;) {
          const { result, payload } = await (next ?? read());
          next = result.eof ? undefined : read();
          next?.catch(() => undefined);
          bytes += payload.length;
          if (payload.length > 0) this.push(payload);
          if (result.eof) {
            finished = true;
            this.push(null);
          }
          if (payload.length > 0 || result.eof) return;
        }
      } catch (err) {
        this.destroy(err as Error);
      }
    },
    destroy(err, callback) {
      if (!finished) workspace.call('streamClose', { stream }).catch(() => undefined);
      onEnd(bytes, finished && !err, err ?? undefined);
      callback(err);
    },
  });
  return readable;
}

/** Feeds `body` into the open sink `stream` and commits it; on any failure the sink is dropped. */
export async function feedAndFinish(
  workspace: Workspace,
  stream: number,
  body: AsyncIterable<Buffer>,
  sent: { bytes: number },
): Promise<OpResult<'streamFinish'>> {
  try {
    await pumpInto(workspace, stream, body, sent);
    return (await workspace.call('streamFinish', { stream })).result;
  } catch (err) {
    await workspace.call('streamClose', { stream }).catch(() => undefined);
    throw err;
  }
}

/** Errors of the service's own writes into a reopened upload that say something about the disk. */
const DISK_ERRORS = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'EIO', 'EROFS']);

/**
 * Writes `body` through `handle` (the upload's temp file, reopened), counting it in `sent.bytes`. Stops
 * reading at the first chunk past `allowance`: the runtime refuses the count then, with the error that
 * says which limit it was. The runtime hashes the file itself, while it syncs it.
 */
async function writeBody(
  handle: fs.FileHandle,
  body: AsyncIterable<Buffer>,
  allowance: number,
  sent: { bytes: number },
): Promise<{ bytes: number }> {
  let bytes = 0;
  await pipeline(
    body,
    async function* (source: AsyncIterable<Buffer>) {
      for await (const chunk of source) {
        bytes += chunk.length;
        sent.bytes = bytes;
        if (bytes > allowance) return;
        yield chunk;
      }
    },
    // The stream closes the handle when done (a handle lent to a stream cannot be closed before it is).
    handle.createWriteStream(),
  );
  return { bytes };
}

/**
 * A file upload: opens it in the runtime (a temp file beside the target), writes the body straight into
 * that file when the service can reopen it (SessionRuntime.writeThroughDescriptor: one process handles
 * the bytes, as a plain stream-to-disk route would), else pumps it through streamWrite frames; then the
 * runtime checks, syncs and renames it. On any failure the temp file is dropped.
 */
export async function uploadFile(
  workspace: Workspace,
  args: OpArgs<'uploadOpen'>,
  body: AsyncIterable<Buffer>,
  sent: { bytes: number },
): Promise<OpResult<'streamFinish'>> {
  const { stream, relative, fd, allowance } = (await workspace.call('uploadOpen', args)).result;
  const generation = workspace.runtime.generation;
  let written: { value: { bytes: number } } | undefined;
  try {
    written = await workspace.runtime.writeThroughDescriptor(generation, fd, (handle) =>
      writeBody(handle, body, allowance, sent),
    );
  } catch (err) {
    await workspace.call('streamClose', { stream }).catch(() => undefined);
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    throw code !== undefined && DISK_ERRORS.has(code) ? fromFsError(err, relative) : err;
  }
  if (!written) return feedAndFinish(workspace, stream, body, sent);
  // A refusal here (over the allowance, a file changed meanwhile) drops the stream in the runtime.
  return (await workspace.call('streamFinish', { stream, written: written.value })).result;
}
