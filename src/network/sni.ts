// The server name a TLS client asks for (SNI), read from its first bytes through a CONNECT tunnel, so
// the proxy can refuse a client that asked to reach one host and then names another (domain fronting).
// Only a ClientHello whole in the first chunk is read; anything else yields no name and is let through —
// the address the tunnel goes to was checked already, which is what confinement rests on.

/** The SNI host name in `chunk` if it starts with a TLS ClientHello carrying one. */
export function serverNameOf(chunk: Buffer): string | undefined {
  try {
    // TLS record: type 22 (handshake), version, length; handshake type 1 (ClientHello).
    if (chunk.length < 43 || chunk[0] !== 22 || chunk[5] !== 1) return undefined;
    let at = 9 + 2 + 32; // handshake header (4 after the 5-byte record header), version, random
    at += 1 + chunk[at]!; // session id
    at += 2 + chunk.readUInt16BE(at); // cipher suites
    at += 1 + chunk[at]!; // compression methods
    const end = Math.min(chunk.length, at + 2 + chunk.readUInt16BE(at));
    at += 2;
    while (at + 4 <= end) {
      const type = chunk.readUInt16BE(at);
      const length = chunk.readUInt16BE(at + 2);
      at += 4;
      if (type === 0) {
        // server_name list: length, then entries of (type 0 = host_name, length, name).
        let entry = at + 2;
        while (entry + 3 <= at + length) {
          const nameLength = chunk.readUInt16BE(entry + 1);
          if (chunk[entry] === 0) return chunk.toString('ascii', entry + 3, entry + 3 + nameLength);
          entry += 3 + nameLength;
        }
        return undefined;
      }
      at += length;
    }
  } catch {
    // A truncated hello: no name.
  }
  return undefined;
}
