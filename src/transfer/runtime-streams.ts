// The service's side of a runtime transfer stream (see runtime/ops/transfer.ts): a request body pumped
// into the runtime in chunks of about a megabyte, and a Readable that pulls a download out of it chunk by
// chunk. Up to WRITES_IN_FLIGHT chunks of an upload are in flight at a time: the service keeps reading
// the client while the runtime (another process, maybe waiting for a CPU on a busy machine) catches up,
// and no more than that window ever piles up in the runtime.
import { Readable } from 'node:stream';
import type { OpResult } from '../runtime/ops/index.js';
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
