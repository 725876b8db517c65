// A large answer of a preview carried by the kernel: once toolgate has written the answer's head (its
// headers rewritten, src/preview/headers.ts), the rest of a body of known length goes from the
// connection into the session straight to the browser's socket with splice(2) (the splice forwarder of
// the egress path, src/network/splice-forwarder.ts), never through this process's memory. Copying a body
// here cost a read and a write of every byte in JavaScript, a third process's work on top of the app's
// and the client's: a download through a preview ran at about a third of the direct speed on two cores
// (docs/performance.md, "Previews"). Until the forwarder is ready (a spare one, kept started by the
// service, in milliseconds; else a process start), the body is
// copied here, so the start costs no stall; a body that ends before then never meets it.
// Both connections close when the body has gone: the connection into the session, because its HTTP
// parser was bypassed (what follows on it is not its business any more); the browser's, because the
// forwarder ends it when its budget, the body's last byte, is spent (the head said `Connection: close`).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type net from 'node:net';
import { handOff, spliceAvailable, type Handoff } from '../network/splice-forwarder.js';

/** Bodies at least this long are spliced: below it, a forwarder's start costs more than the copy. */
export const SPLICE_BODY_BYTES = 4 * 1024 * 1024;

/** The body's length when `answer` is one to splice (a known length, large enough), else undefined. */
export function spliceableLength(method: string, answer: IncomingMessage): number | undefined {
  const status = answer.statusCode ?? 0;
  if (method === 'HEAD' || status < 200 || status === 204 || status === 304) return undefined;
  if (answer.headers['transfer-encoding'] !== undefined) return undefined;
  const length = Number(answer.headers['content-length']);
  if (!Number.isSafeInteger(length) || length < SPLICE_BODY_BYTES) return undefined;
  return spliceAvailable() ? length : undefined;
}

/**
 * Carries the body of `answer` (`length` bytes, of which some may already be read) to `res`, whose head
 * must be written already. `ended` gets the body bytes that reached the browser's socket, once, and
 * whether the body was cut short.
 */
export function spliceBody(
  answer: IncomingMessage,
  res: ServerResponse,
  length: number,
  ended: (bytes: number, cut: boolean) => void,
): void {
  const upstream = answer.socket as net.Socket;
  const client = res.socket as net.Socket;
  let moved = 0;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    upstream.destroy();
    ended(moved, moved < length);
  };
  // The HTTP client is done with this connection: what it sends from here on is the body's, read raw.
  const noop = () => undefined;
  answer.on('error', noop);
  upstream.on('error', noop);
  upstream.removeAllListeners('data');
  upstream.removeAllListeners('end');
  const handoff: Handoff = handOff(client, upstream, 'down', {
    take: (_direction, bytes) => {
      const granted = Math.min(bytes, length - moved);
      moved += granted;
      return granted;
    },
    count: (_direction, bytes) => {
      moved += bytes;
      return true;
    },
    allowance: () => length - moved,
    ended: finish,
  });
  /** Copied here until the forwarder takes over: true once the whole body is out. */
  const copy = (chunk: Buffer): boolean => {
    const part = chunk.length > length - moved ? chunk.subarray(0, length - moved) : chunk;
    moved += part.length;
    if (!client.write(part)) upstream.pause();
    return moved >= length;
  };
  const complete = () => {
    handoff.kill();
    // Nothing of the body goes through `res`: ending it finishes the answer, and the connection closes.
    res.end();
    finish();
  };
  // What the HTTP client parsed before it let go: the body's first bytes.
  for (let chunk: Buffer | null; (chunk = answer.read() as Buffer | null) !== null;) {
    if (copy(chunk)) return complete();
  }
  upstream.on('data', (chunk: Buffer) => {
    if (!handoff.taken && !finished && copy(chunk)) complete();
  });
  client.on('drain', () => handoff.taken || upstream.resume());
  upstream.resume();
  // Before the forwarder takes over, an end on either side is the copy's to handle (after, the
  // forwarder's: it reports through `ended`).
  const cut = () => {
    if (handoff.taken || finished) return;
    handoff.kill();
    client.destroy();
    finish();
  };
  upstream.once('close', cut);
  upstream.once('end', cut);
  client.once('close', cut);
}
