// The ClientHello reader the egress proxy checks a tunnel's TLS server name with: a real hello, whole,
// in pieces of any size, and spread over several TLS records, is read with its name; bytes that are not
// TLS pass as such; a hello that is malformed or larger than the bound is refused, never let through
// unread.
import { describe, expect, it } from 'vitest';
import { MAX_HELLO_BYTES, readClientHello } from '../../src/network/sni.js';
import { clientHello } from './tls-hello.js';

const hello = await clientHello('allowed.example.org');

/** The hello's handshake message put in records of at most `size` bytes each. */
function inRecords(record: Buffer, size: number): Buffer {
  const handshake = record.subarray(5);
  const records: Buffer[] = [];
  for (let at = 0; at < handshake.length; at += size) {
    const fragment = handshake.subarray(at, at + size);
    const header = Buffer.from([22, 3, 1, 0, 0]);
    header.writeUInt16BE(fragment.length, 3);
    records.push(header, fragment);
  }
  return Buffer.concat(records);
}

describe('reading a ClientHello', () => {
  it('reads the server name of a whole hello, and of every prefix says it needs more', () => {
    expect(readClientHello(hello)).toEqual({ kind: 'hello', serverName: 'allowed.example.org' });
    for (let cut = 1; cut < hello.length; cut++) {
      expect(readClientHello(hello.subarray(0, cut)).kind, `${cut} of ${hello.length} bytes`).toBe('more');
    }
  });

  it('puts a hello spread over several TLS records together', () => {
    for (const size of [1, 7, 100]) {
      const split = inRecords(hello, size);
      expect(readClientHello(split)).toEqual({ kind: 'hello', serverName: 'allowed.example.org' });
      expect(readClientHello(split.subarray(0, split.length - 1)).kind).toBe('more');
    }
  });

  it('lets bytes that are no TLS handshake pass as such', () => {
    expect(readClientHello(Buffer.from('SSH-2.0-OpenSSH_9.2\r\n')).kind).toBe('not-tls');
    expect(readClientHello(Buffer.from('GET / HTTP/1.1\r\n\r\n')).kind).toBe('not-tls');
  });

  it('refuses a hello larger than the bound, malformed records and a hello whose lengths do not add up', () => {
    // A handshake record announcing a ClientHello of 100 KiB.
    const huge = Buffer.from([22, 3, 1, 0, 4, 1, 0x01, 0x90, 0x00]);
    expect(readClientHello(huge)).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('larger'),
    });
    // Just past the bound, announced in the handshake header: refused before a byte more is held.
    const past = Buffer.from([22, 3, 1, 0, 4, 1, 0, 0, 0]);
    past.writeUIntBE(MAX_HELLO_BYTES - 3, 6, 3);
    expect(readClientHello(past).kind).toBe('refused');
    past.writeUIntBE(MAX_HELLO_BYTES - 4, 6, 3);
    expect(readClientHello(past).kind).toBe('more');
    // A ServerHello (type 2) where the ClientHello must be; an alert record before the hello.
    const serverHello = Buffer.from(hello);
    serverHello[5] = 2;
    expect(readClientHello(serverHello).kind).toBe('refused');
    const alertFirst = Buffer.concat([
      inRecords(hello, 10).subarray(0, 15),
      Buffer.from([21, 3, 1, 0, 2, 2, 40]),
    ]);
    expect(readClientHello(alertFirst).kind).toBe('refused');
    // The extensions' length says more than the hello holds.
    const lying = Buffer.from(hello);
    // Past the record and handshake headers, the version and random, then the session id, cipher suites
    // and compression methods, each after its length: there the extensions' length.
    let at = 5 + 4 + 2 + 32;
    at += 1 + lying[at]!;
    at += 2 + lying.readUInt16BE(at);
    at += 1 + lying[at]!;
    lying.writeUInt16BE(lying.readUInt16BE(at) + 50, at);
    expect(readClientHello(lying)).toEqual({ kind: 'refused', reason: 'a malformed ClientHello' });
  });
});
