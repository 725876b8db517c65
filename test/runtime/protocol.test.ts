// The runtime wire format (src/runtime/protocol.ts): frames written whole or as head + payload, read back
// from a byte stream cut anywhere, with non-ASCII headers and payloads of every size class.
import { describe, expect, it } from 'vitest';
import {
  encodeFrame,
  encodeFrameParts,
  FrameReader,
  SEPARATE_PAYLOAD_BYTES,
  writeFrame,
  type FrameHeader,
} from '../../src/runtime/protocol.js';

const frames: { header: FrameHeader; payload: Buffer }[] = [
  { header: { t: 'req', id: 1, op: 'readFile', args: { path: 'src/ä.ts' } }, payload: Buffer.alloc(0) },
  {
    header: { t: 'res', id: 1, ok: true, result: { relative: 'src/ä.ts', sha256: 'ab' } },
    payload: Buffer.from('line 1 ✓\n'),
  },
  {
    header: { t: 'res', id: 2, ok: false, error: { code: 'FILE_NOT_FOUND', message: 'ß… not found' } },
    payload: Buffer.alloc(0),
  },
  { header: { t: 'out', proc: 3, stream: 'stdout' }, payload: Buffer.alloc(SEPARATE_PAYLOAD_BYTES + 5, 7) },
];

describe('runtime frames', () => {
  it('read back what was written, whole or as head + payload, however the stream is cut', () => {
    const written: Uint8Array[] = [];
    for (const { header, payload } of frames)
      writeFrame({ write: (chunk) => written.push(chunk) }, header, payload);
    const stream = Buffer.concat(written);
    expect(stream).toEqual(Buffer.concat(frames.map(({ header, payload }) => encodeFrame(header, payload))));
    for (const cut of [1, 3, 7, 64, 1000, stream.length]) {
      const reader = new FrameReader();
      const read = [];
      for (let at = 0; at < stream.length; at += cut)
        read.push(...reader.push(stream.subarray(at, at + cut)));
      expect(read.map((f) => f.header)).toEqual(frames.map((f) => f.header));
      expect(read.map((f) => Buffer.from(f.payload))).toEqual(frames.map((f) => f.payload));
    }
  });

  it('a head + payload pair is the whole frame, the payload not copied', () => {
    const { header, payload } = frames[3];
    const [head, body] = encodeFrameParts(header, payload);
    expect(body).toBe(payload);
    expect(Buffer.concat([head, body])).toEqual(encodeFrame(header, payload));
    expect(head.readUInt32LE(0)).toBe(head.length - 4 + payload.length);
  });
});
