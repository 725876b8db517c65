// The server name a TLS client asks for (SNI), read from the first bytes it sends through a CONNECT
// tunnel, so the proxy can refuse a client that asked to reach one host and then names another (domain
// fronting). The ClientHello may come in pieces (a client, or a hostile one, may write it a few bytes at
// a time, or spread it over several TLS records): the proxy holds the client's bytes until the hello is
// whole, up to MAX_HELLO_BYTES, and a hello that is malformed or larger than that is refused rather
// than let through unread. Bytes that do not start a TLS handshake record (SSH, plain text) are no
// ClientHello and pass: the address the tunnel goes to was checked already.

/** The most a client may send before its ClientHello is whole (real ones are a few KiB at most). */
export const MAX_HELLO_BYTES = 32 * 1024;

/** A TLS record's payload is at most 2^14 bytes (plus expansion a client hello never uses). */
const MAX_RECORD = 16 * 1024 + 2048;

export type HelloReading =
  /** A ClientHello started and is not whole yet: hold the bytes, read more. */
  | { readonly kind: 'more' }
  /** A whole ClientHello, with the server name it carries (undefined: none). */
  | { readonly kind: 'hello'; readonly serverName: string | undefined }
  /** The bytes do not start a TLS handshake: not TLS, nothing to check. */
  | { readonly kind: 'not-tls' }
  /** A hello that cannot be read (malformed, or larger than the bound): refuse the tunnel. */
  | { readonly kind: 'refused'; readonly reason: string };

const refused = (reason: string): HelloReading => ({ kind: 'refused', reason });

/**
 * Reads the ClientHello from everything the client has sent so far (`bytes`, from its first byte). Its
 * handshake message is put together from as many handshake records as it spans.
 */
export function readClientHello(bytes: Buffer, bound = MAX_HELLO_BYTES): HelloReading {
  if (bytes.length === 0) return { kind: 'more' };
  if (bytes[0] !== 22) return { kind: 'not-tls' };
  const fragments: Buffer[] = [];
  let gathered = 0;
  let at = 0;
  while (at < bytes.length) {
    if (bytes.length - at < 5) break;
    // TLS record header: type 22 (handshake), version 3.x, payload length.
    if (bytes[at] !== 22) return refused('a TLS record other than the handshake came before the ClientHello');
    if (bytes[at + 1] !== 3) return refused('not a TLS record version');
    const length = bytes.readUInt16BE(at + 3);
    if (length === 0 || length > MAX_RECORD) return refused('a TLS record of an impossible length');
    const fragment = bytes.subarray(at + 5, Math.min(bytes.length, at + 5 + length));
    fragments.push(fragment);
    gathered += fragment.length;
    at += 5 + length;
  }
  const handshake = Buffer.concat(fragments, gathered);
  if (handshake.length >= 1 && handshake[0] !== 1)
    return refused('the first TLS handshake is not a ClientHello');
  if (handshake.length >= 4) {
    const helloLength = handshake.readUIntBE(1, 3);
    if (helloLength + 4 > bound) return refused(`a ClientHello larger than ${bound} bytes`);
    if (handshake.length >= helloLength + 4) {
      const serverName = serverNameIn(handshake.subarray(4, 4 + helloLength));
      return serverName === null ? refused('a malformed ClientHello') : { kind: 'hello', serverName };
    }
  }
  if (bytes.length >= bound) return refused(`no whole ClientHello within ${bound} bytes`);
  return { kind: 'more' };
}

/** The host name of the server_name extension in a ClientHello body; undefined: none; null: malformed. */
function serverNameIn(hello: Buffer): string | undefined | null {
  try {
    let at = 2 + 32; // client version, random
    at += 1 + hello[at]!; // session id
    at += 2 + hello.readUInt16BE(at); // cipher suites
    at += 1 + hello[at]!; // compression methods
    if (at === hello.length) return undefined; // no extensions at all (old clients)
    const end = at + 2 + hello.readUInt16BE(at);
    if (end > hello.length) return null;
    at += 2;
    while (at + 4 <= end) {
      const type = hello.readUInt16BE(at);
      const length = hello.readUInt16BE(at + 2);
      at += 4;
      if (at + length > end) return null;
      if (type === 0) {
        // server_name list: its length, then entries of (type 0 = host_name, length, name).
        let entry = at + 2;
        while (entry + 3 <= at + length) {
          const nameLength = hello.readUInt16BE(entry + 1);
          if (entry + 3 + nameLength > at + length) return null;
          if (hello[entry] === 0) return hello.toString('ascii', entry + 3, entry + 3 + nameLength);
          entry += 3 + nameLength;
        }
        return undefined;
      }
      at += length;
    }
    return undefined;
  } catch {
    // Read past the end: the lengths inside do not add up.
    return null;
  }
}
