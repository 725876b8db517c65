// The runtime's open transfer streams, by id: sources the service drains (downloads, packed archives)
// and sinks it feeds (uploads, extractions). Frames are handled concurrently, so every operation on one
// stream is queued behind the previous one: chunks are written in the order they were sent.
import type { Readable } from 'node:stream';
import { toolgateError } from '../../lib/errors.js';
import type { ExtractResult, UploadResult } from '../ops/transfer.js';

export interface SourceStream {
  readonly kind: 'source';
  /** The next chunk (at most about maxBytes); eof once nothing follows it. */
  read(maxBytes: number): Promise<{ chunk: Buffer; eof: boolean }>;
  close(): Promise<void>;
}

export interface SinkStream {
  readonly kind: 'sink';
  /**
   * Sees each chunk as its frame arrives (in order, synchronously), before the queued write: hashing and
   * limit checks of the next chunk then overlap the disk write of the previous one.
   */
  accept?(chunk: Buffer): void;
  write(chunk: Buffer): Promise<void>;
  /**
   * An upload whose bytes the service wrote itself, through the descriptor it reopened (see
   * runtime/reopen-descriptor.ts): takes their count in place of what write would have seen.
   */
  adopt?(written: { bytes: number }): void;
  /** Commits what was written; the stream is closed afterwards either way. */
  finish(): Promise<UploadResult | ExtractResult>;
  /** Drops it: what it wrote so far is removed. */
  close(): Promise<void>;
}

type AnyStream = SourceStream | SinkStream;

/** Below this a read returns what is buffered instead of waiting for more. */
const MIN_CHUNK_BYTES = 64 * 1024;

export class StreamTable {
  private nextId = 1;
  private readonly open = new Map<number, { stream: AnyStream; tail: Promise<unknown> }>();

  add(stream: AnyStream): number {
    const id = this.nextId++;
    this.open.set(id, { stream, tail: Promise.resolve() });
    return id;
  }

  /** Runs `work` after every earlier operation on the stream; a failure closes the stream. */
  run<K extends AnyStream['kind'], T>(
    id: number,
    kind: K,
    work: (stream: Extract<AnyStream, { kind: K }>) => Promise<T>,
  ): Promise<T> {
    const slot = this.open.get(id);
    if (!slot || slot.stream.kind !== kind) {
      return Promise.reject(
        toolgateError('BAD_REQUEST', `No open ${kind} stream ${id} (it failed or was closed)`),
      );
    }
    const result = slot.tail.then(() => work(slot.stream as Extract<AnyStream, { kind: K }>));
    // After a failure nothing more can be queued on it: it is dropped here, not behind its own tail.
    slot.tail = result.catch(async () => {
      if (this.open.get(id) !== slot) return;
      this.open.delete(id);
      await slot.stream.close().catch(() => undefined);
    });
    return result;
  }

  /** Closes and forgets the stream (after what is queued on it). */
  async close(id: number): Promise<void> {
    const slot = this.open.get(id);
    if (!slot) return;
    this.open.delete(id);
    await slot.tail.catch(() => undefined);
    await slot.stream.close().catch(() => undefined);
  }

  /** Runs the sink's `accept` now (see SinkStream); a refusal drops the stream. */
  accept(id: number, chunk: Buffer): void {
    const slot = this.open.get(id);
    if (slot?.stream.kind !== 'sink' || !slot.stream.accept) return;
    try {
      slot.stream.accept(chunk);
    } catch (err) {
      this.open.delete(id);
      void slot.tail.then(() => slot.stream.close()).catch(() => undefined);
      throw err;
    }
  }

  /** A finished sink is forgotten without being dropped. */
  forget(id: number): void {
    this.open.delete(id);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.open.keys()].map((id) => this.close(id)));
  }
}

/** A source over a Node Readable (a gzip or zip output): chunks of what it produced, gathered up. */
export function readableSource(readable: Readable, onClose: () => Promise<void> = async () => undefined) {
  // The async iterator listens for 'error' only once its first next() runs, which is the service's first
  // read. A stream that fails before then (an archive walk whose directory was swapped away between
  // the stat and the readdir) would emit an 'error' nobody listens to, and that stops the runtime: every
  // call of the session failed with RUNTIME_UNAVAILABLE. The iterator still gets the error (the
  // stream keeps it), so the first read fails with it.
  readable.on('error', () => undefined);
  const iterator = readable[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let ended = false;
  const source: SourceStream = {
    kind: 'source',
    async read(maxBytes) {
      const parts: Buffer[] = [];
      let size = 0;
      while (!ended && size < maxBytes) {
        if (size >= MIN_CHUNK_BYTES && readable.readableLength === 0) break;
        const next = await iterator.next();
        if (next.done) ended = true;
        else {
          parts.push(next.value);
          size += next.value.length;
        }
      }
      return { chunk: parts.length === 1 ? parts[0] : Buffer.concat(parts), eof: ended };
    },
    async close() {
      readable.destroy();
      await onClose();
    },
  };
  return source;
}
