// One session's snapshot data in the service's own data dir, <dataDir>/snapshots/<session>/: blobs
// named by the SHA-256 of their content (written once, read-only, shared by every manifest that holds
// them) and the manifests themselves (gzipped JSON). Never inside a workspace and never mounted into a
// sandbox: the agent can neither read nor corrupt it. Workspace contents reach it only as bytes over
// the runtime protocol.
import { constants, promises as fs } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { makeDirs } from '../lib/make-dirs.js';
import type { Manifest } from './manifest.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);
const SHA256 = /^[0-9a-f]{64}$/;
const MANIFEST_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Runs `work` on every item, `width` at a time: many small files go faster with a few in flight. */
export async function eachInParallel<T>(
  items: readonly T[],
  width: number,
  work: (item: T) => Promise<void>,
) {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
}

export class BlobStore {
  constructor(readonly dir: string) {}

  private blobPath(sha: string): string {
    if (!SHA256.test(sha)) throw new Error(`not a sha256: ${sha.slice(0, 80)}`);
    return path.join(this.dir, 'blobs', sha.slice(0, 2), sha);
  }

  private manifestPath(id: string): string {
    if (!MANIFEST_ID.test(id)) throw new Error(`bad manifest id: ${id.slice(0, 80)}`);
    return path.join(this.dir, 'manifests', `${id}.json.gz`);
  }

  /** Where a blob lives (immutable; for hard links into a fork's lower tree, see sandbox/overlay-workspaces.ts). */
  pathOf(sha: string): string {
    return this.blobPath(sha);
  }

  async has(sha: string): Promise<boolean> {
    return fs.access(this.blobPath(sha)).then(
      () => true,
      () => false,
    );
  }

  /** Stores content under its hash (no-op when present): temp file + rename, read-only once there. */
  async put(sha: string, bytes: Uint8Array): Promise<boolean> {
    const target = this.blobPath(sha);
    if (await this.has(sha)) return false;
    await makeDirs(path.dirname(target));
    const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    await fs.writeFile(temp, bytes, { mode: 0o444 });
    await fs.rename(temp, target);
    return true;
  }

  read(sha: string): Promise<Buffer> {
    return fs.readFile(this.blobPath(sha));
  }

  /**
   * Makes another store's blob ours without copying: a hard link (blobs are immutable and live only in
   * the data dir, so sharing the inode is safe), else a reflink or copy.
   */
  async adopt(from: BlobStore, sha: string): Promise<void> {
    const target = this.blobPath(sha);
    // One link call in the common case (forks adopt every blob of a tree): EEXIST means we have it.
    for (let attempt = 0; ; attempt++) {
      try {
        await fs.link(from.blobPath(sha), target);
        return;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') return;
        if (code === 'ENOENT' && attempt === 0 && (await from.has(sha))) {
          await makeDirs(path.dirname(target));
          continue;
        }
        if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'EMLINK') throw err;
        await fs.copyFile(from.blobPath(sha), target, constants.COPYFILE_FICLONE);
        return;
      }
    }
  }

  /**
   * Makes a file with `sha`'s content our blob by hard link (a fork's lower tree file: immutable as
   * long as the fork lives); a blob we have already is kept. Empty content is never linked.
   */
  async adoptFile(source: string, sha: string): Promise<void> {
    const target = this.blobPath(sha);
    try {
      await fs.link(source, target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return;
      if (code === 'EMLINK') return void (await fs.copyFile(source, target));
      if (code !== 'ENOENT') throw err;
      await makeDirs(path.dirname(target));
      await fs.link(source, target).catch((again: NodeJS.ErrnoException) => {
        if (again.code !== 'EEXIST') throw again;
      });
    }
  }

  async removeBlobs(shas: Iterable<string>): Promise<void> {
    for (const sha of shas) await fs.rm(this.blobPath(sha), { force: true });
  }

  async writeManifest(id: string, manifest: Manifest): Promise<void> {
    const target = this.manifestPath(id);
    await makeDirs(path.dirname(target));
    const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    await fs.writeFile(temp, await gzipAsync(JSON.stringify(manifest), { level: 1 }));
    await fs.rename(temp, target);
  }

  /** undefined when there is no such manifest. */
  async readManifest(id: string): Promise<Manifest | undefined> {
    const bytes = await fs.readFile(this.manifestPath(id)).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    return bytes && (JSON.parse((await gunzipAsync(bytes)).toString('utf8')) as Manifest);
  }

  async removeManifest(id: string): Promise<void> {
    await fs.rm(this.manifestPath(id), { force: true });
  }

  async copyManifest(from: BlobStore, id: string): Promise<void> {
    await makeDirs(path.join(this.dir, 'manifests'));
    await fs.copyFile(from.manifestPath(id), this.manifestPath(id));
  }

  async removeAll(): Promise<void> {
    await fs.rm(this.dir, { recursive: true, force: true });
  }
}
