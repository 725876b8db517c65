// The wire format between the service and a session runtime: length-prefixed frames over a byte stream
// (the runtime's stdin/stdout today; a socket to a pod tomorrow). A frame is
//   u32 total length | u32 header length | header (UTF-8 JSON) | payload (raw bytes, may be empty)
// so file contents and command output travel as bytes, never as base64 inside JSON.
// Pure: no I/O here, both sides import it.

/** A request from the service: run operation `op` with `args` (and bytes in the payload, for writes). */
export interface RequestHeader {
  readonly t: 'req';
  readonly id: number;
  readonly op: string;
  readonly args: unknown;
}

/** The answer to request `id`: a result (bytes in the payload) or an error in the envelope's terms. */
export type ResponseHeader =
  | { readonly t: 'res'; readonly id: number; readonly ok: true; readonly result: unknown }
  | { readonly t: 'res'; readonly id: number; readonly ok: false; readonly error: WireError };

/** Something a running command did: output on a stream (bytes in the payload) or its exit. */
export type ProcessEventHeader =
  | {
      readonly t: 'out';
      readonly proc: number;
      readonly stream: 'stdout' | 'stderr';
      /** Kept output sent again for `adopt` (a service adopting commands after re-attaching). */
      readonly replay?: true;
    }
  | {
      readonly t: 'exit';
      readonly proc: number;
      readonly exitCode: number | null;
      readonly signal: string | null;
      /** Set when the runtime itself stopped the command: it pushed the workspace past its quota. */
      readonly reason?: 'quota';
      readonly replay?: true;
    };

export type FrameHeader = RequestHeader | ResponseHeader | ProcessEventHeader;

export interface WireError {
  readonly code: string;
  readonly message: string;
  readonly suggestion?: string;
  readonly details?: Record<string, unknown>;
}

export interface Frame {
  readonly header: FrameHeader;
  readonly payload: Buffer;
}

const EMPTY = Buffer.alloc(0);
/** A frame larger than this is a protocol error (the biggest legitimate ones are file contents). */
export const MAX_FRAME_BYTES = 512 * 1024 * 1024;

export function encodeFrame(header: FrameHeader, payload: Uint8Array = EMPTY): Buffer {
  return encodeHead(header, payload.length, payload);
}

/** The frame as its head (lengths and header) and the payload as is: large payloads are not copied. */
export function encodeFrameParts(header: FrameHeader, payload: Uint8Array = EMPTY): [Buffer, Uint8Array] {
  return [encodeHead(header, payload.length), payload];
}

/** Lengths and header, with `inline` (a small payload) after them: one buffer, the JSON written into it. */
function encodeHead(header: FrameHeader, payloadLength: number, inline?: Uint8Array): Buffer {
  const json = JSON.stringify(header);
  const jsonLength = Buffer.byteLength(json);
  const head = Buffer.allocUnsafe(8 + jsonLength + (inline?.length ?? 0));
  head.writeUInt32LE(4 + jsonLength + payloadLength, 0);
  head.writeUInt32LE(jsonLength, 4);
  head.write(json, 8, jsonLength, 'utf8');
  if (inline && inline.length > 0) head.set(inline, 8 + jsonLength);
  return head;
}

/** Payloads from this size on are written after their head rather than copied into one buffer. */
export const SEPARATE_PAYLOAD_BYTES = 64 * 1024;

/** Writes one frame to a stream, without copying a large payload. */
export function writeFrame(
  out: { write(chunk: Uint8Array): unknown },
  header: FrameHeader,
  payload: Uint8Array = EMPTY,
): void {
  if (payload.length < SEPARATE_PAYLOAD_BYTES) {
    out.write(encodeFrame(header, payload));
    return;
  }
  const [head, body] = encodeFrameParts(header, payload);
  out.write(head);
  out.write(body);
}

/** Cuts a byte stream into frames; feed it chunks as they arrive. */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  push(chunk: Buffer): Frame[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: Frame[] = [];
    while (this.buffered >= 4) {
      const head = this.peek(4);
      const total = head.readUInt32LE(0);
      if (total > MAX_FRAME_BYTES || total < 4)
        throw new Error(`runtime protocol: bad frame length ${total}`);
      if (this.buffered < 4 + total) break;
      const frame = this.take(4 + total);
      const headerLength = frame.readUInt32LE(4);
      const header = JSON.parse(frame.toString('utf8', 8, 8 + headerLength)) as FrameHeader;
      frames.push({ header, payload: frame.subarray(8 + headerLength) });
    }
    return frames;
  }

  private peek(bytes: number): Buffer {
    if (this.chunks[0].length >= bytes) return this.chunks[0];
    this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0];
  }

  private take(bytes: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    const frame = all.subarray(0, bytes);
    const rest = all.subarray(bytes);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return frame;
  }
}

/**
 * Re-attaching to a runtime that outlived its service (containers, pods): the attach stream may begin in
 * the middle of a frame. The service sends request `attach` with a fresh nonce; the runtime writes this
 * marker, between two frames, and then its ready answer (response 0). The service drops every byte up to
 * and including the marker, so what follows starts on a frame boundary.
 */
export const ATTACH_OP = 'attach';
export const attachMarker = (nonce: string): Buffer => Buffer.from(`\n\0toolgate-attach:${nonce}\0\n`);
