// Archive builders and a workspace fingerprint for the archive tests: tar/tar.gz with tar-stream (any
// entry, hostile ones included), zip with yazl, and a hash of a workspace directory as it is on disk.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { crc32, gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import yazl from 'yazl';

export type TarEntry = Partial<tar.Header> & { name: string; content?: Buffer | string };

export async function tarOf(entries: TarEntry[], gzip = true): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const collected = (async () => {
    for await (const chunk of pack) chunks.push(chunk as Buffer);
  })();
  for (const { content, ...header } of entries) {
    await new Promise<void>((resolve, reject) =>
      pack.entry(header, content ?? '', (err) => (err ? reject(err) : resolve())),
    );
  }
  pack.finalize();
  await collected;
  const raw = Buffer.concat(chunks);
  return gzip ? gzipSync(raw) : raw;
}

export async function zipOf(
  entries: Array<{ name: string; content?: Buffer | string; mode?: number; directory?: boolean }>,
): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const entry of entries) {
    if (entry.directory) zip.addEmptyDirectory(entry.name);
    else zip.addBuffer(Buffer.from(entry.content ?? ''), entry.name, entry.mode ? { mode: entry.mode } : {});
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A zip of stored (uncompressed) files written by hand: yazl takes minutes for tens of thousands of
 * entries, this takes milliseconds. Up to 65,535 entries (no zip64).
 */
export function storedZipOf(entries: Array<{ name: string; content: string }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, content } of entries) {
    const nameBytes = Buffer.from(name);
    const data = Buffer.from(content);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(10, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x0314, 4);
    central.writeUInt16LE(10, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    centrals.push(central, nameBytes);
    offset += 30 + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** Replaces every occurrence of `from` by `to` (same length): names yazl would refuse to write. */
export function patchBytes(archive: Buffer, from: string, to: string): Buffer {
  if (from.length !== to.length) throw new Error('same length only');
  const out = Buffer.from(archive);
  for (let at = out.indexOf(from); at !== -1; at = out.indexOf(from, at + 1)) out.write(to, at, 'latin1');
  return out;
}

/** Names, types, modes, contents and link targets of everything under `dir`, as one hash. */
export function fingerprint(dir: string): string {
  const hash = createHash('sha256');
  const walk = (at: string, rel: string) => {
    for (const name of readdirSync(at).sort()) {
      const full = path.join(at, name);
      const stat = lstatSync(full);
      const relative = `${rel}${name}`;
      if (stat.isSymbolicLink()) hash.update(`L ${relative} -> ${readlinkSync(full)}\n`);
      else if (stat.isDirectory()) {
        hash.update(`D ${relative}\n`);
        walk(full, `${relative}/`);
      } else
        hash.update(
          `F ${relative} ${stat.mode & 0o777} ${createHash('sha256').update(readFileSync(full)).digest('hex')}\n`,
        );
    }
  };
  walk(dir, '');
  return hash.digest('hex');
}
