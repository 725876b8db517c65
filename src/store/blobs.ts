// Uploaded blobs in <dataDir>/blobs: archives sent ahead of POST /v1/sessions (`archive: <blob id>`), so a
// large one need not travel as base64 inside JSON. A blob is written to a temp file while hashed and
// renamed into place when complete; it lives for blobs.ttlSeconds (counted from its upload) and can seed
// any number of sessions meanwhile. The sweep removes expired ones.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { toolgateError } from '../lib/errors.js';
import { makeDirs } from '../lib/make-dirs.js';

const BLOB_ID = /^blob_[0-9a-f]{24}$/;

export interface BlobInfo {
  readonly id: string;
  readonly size: number;
  readonly sha256: string;
  readonly expiresAt: number;
}

export class BlobStore {
  constructor(
    readonly dir: string,
    private readonly ttlMs: number,
  ) {}

  private fileOf(id: string): string {
    if (!BLOB_ID.test(id))
      throw toolgateError('NOT_FOUND', `Blob ${id.slice(0, 80)} not found`, {
        suggestion: 'Upload the archive with POST /v1/blobs and use the id it returns.',
      });
    return path.join(this.dir, id);
  }

  /** Stores the body; over maxBytes is 413 and nothing is kept. */
  async put(body: AsyncIterable<Buffer>, maxBytes: number, now = Date.now()): Promise<BlobInfo> {
    await makeDirs(this.dir, 0o700);
    const id = `blob_${randomBytes(12).toString('hex')}`;
    const temp = path.join(this.dir, `.${id}.tmp`);
    const handle = await fs.open(temp, 'wx', 0o600);
    const hash = createHash('sha256');
    let size = 0;
    try {
      for await (const chunk of body) {
        size += chunk.length;
        if (size > maxBytes)
          throw toolgateError('BODY_TOO_LARGE', `The blob is larger than ${maxBytes} bytes`, {
            suggestion: 'Send less, or ask the operator to raise limits.uploadMaxBytes.',
            details: { limit: maxBytes },
          });
        hash.update(chunk);
        await handle.write(chunk);
      }
      await handle.sync();
      await handle.close();
      await fs.rename(temp, path.join(this.dir, id));
    } catch (err) {
      await handle.close().catch(() => undefined);
      await fs.rm(temp, { force: true });
      throw err;
    }
    return { id, size, sha256: hash.digest('hex'), expiresAt: now + this.ttlMs };
  }

  /** The blob's bytes as a stream (404 NOT_FOUND when unknown or expired). */
  async open(id: string, now = Date.now()): Promise<Readable> {
    const file = this.fileOf(id);
    const stat = await fs.stat(file).catch(() => null);
    if (!stat || stat.mtimeMs + this.ttlMs <= now) throw this.missing(id);
    return createReadStream(file, { highWaterMark: 1024 * 1024 });
  }

  async remove(id: string): Promise<boolean> {
    const file = this.fileOf(id);
    const existed = await fs.stat(file).then(
      () => true,
      () => false,
    );
    await fs.rm(file, { force: true });
    return existed;
  }

  /** Removes blobs past their lifetime (and temp files of uploads a crash cut short); returns how many. */
  async sweep(now = Date.now()): Promise<number> {
    const names = await fs.readdir(this.dir).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names) {
      const file = path.join(this.dir, name);
      const stat = await fs.stat(file).catch(() => null);
      if (stat && stat.mtimeMs + this.ttlMs <= now) {
        await fs.rm(file, { force: true });
        removed++;
      }
    }
    return removed;
  }

  private missing(id: string) {
    return toolgateError('NOT_FOUND', `Blob ${id} not found (unknown or expired)`, {
      suggestion: 'Upload the archive again with POST /v1/blobs.',
    });
  }
}
