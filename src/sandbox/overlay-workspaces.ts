// Copy-on-write workspaces for forks, under <dataDir>/forks/: a fork's workspace is an overlayfs view of
// a read-only lower tree (the parent's snapshot) under the child's own upper dir. The service builds and
// removes these directories (service data, never a workspace it looks into); the mount itself happens in
// the child runtime's own mount namespace (runtime/backends/overlay-mount.ts).
//
//   trees/<hash>/tree       the lower tree of one snapshot: directories, symlinks, and each file a hard
//                           link to an immutable blob inode with the file's mode (shared by every fork of
//                           the same snapshot: best-of-n forks of one state build it once)
//   trees/<hash>/users/<id> one empty file per session mounting it; the tree goes with the last one
//   blobs/<sha>             the blob's inode as lower trees use it: the snapshot store's own inode (hard
//                           link), its mode set once, by the first tree that needed it
//   blobs/<sha>.<mode>      a copy for another mode of the same content (the rare case)
//   sessions/<id>/upper     the session's writes; sessions/<id>/work overlayfs' work dir
//   sessions/<id>/layers.json  which trees it stands on
//
// A hard link shares the inode, so a lower file shows its blob's mtime, not the parent file's.
// Only available with the bwrap backend, as real root (overlayfs' redirect_dir, which lets a directory of
// the lower tree be renamed, needs trusted xattrs), and when a probe mount works; otherwise forks copy.
import { execFile } from 'node:child_process';
import { randomBytes, createHash } from 'node:crypto';
import { constants, promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { makeDirs } from '../lib/make-dirs.js';
import type { OverlayMount } from '../runtime/backends/types.js';
import { overlayOptions } from '../runtime/backends/overlay-mount.js';

const execFileAsync = promisify(execFile);
const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;
const TREE_ID = /^[0-9a-f]{64}$/;
const SHA256 = /^[0-9a-f]{64}$/;

/** What a lower tree is made of: a snapshot manifest's entries (see snapshots/manifest.ts). */
export interface LowerEntry {
  readonly path: string;
  readonly type: 'file' | 'directory' | 'symlink';
  readonly mode: number;
  readonly size: number;
  readonly sha256?: string;
  readonly linkTarget?: string;
}

interface Layers {
  readonly lowers: string[];
}

/** Runs `work` after every earlier call has finished: trees and blob modes change one at a time. */
class Serial {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.tail.then(work, work);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

const exists = (file: string) =>
  fs.lstat(file).then(
    () => true,
    () => false,
  );

/** The identity of a lower tree: everything that shows in it (paths, types, modes, contents, targets). */
export function treeId(entries: readonly LowerEntry[]): string {
  const hash = createHash('sha256');
  for (const e of entries)
    hash.update(`${e.type}\0${e.path}\0${e.mode}\0${e.sha256 ?? ''}\0${e.linkTarget ?? ''}\n`);
  return hash.digest('hex');
}

export class OverlayWorkspaces {
  readonly dir: string;
  private readonly serial = new Serial();
  /** Mode of each claimed blob inode in blobs/ (they change only here, one at a time): saves a stat per file. */
  private readonly claimedModes = new Map<string, number>();
  private probed: Promise<boolean> | undefined;
  /** Why overlays are not used, when they are not (for logs and docs). */
  detail = 'not probed yet';

  constructor(
    dataDir: string,
    /** The runtime backend can mount them (bwrap; the unisolated backend cannot). */
    private readonly backendCanMount: boolean,
  ) {
    this.dir = path.join(dataDir, 'forks');
  }

  /** Whether forks get overlay workspaces on this server: probed once, with a real mount. */
  available(): Promise<boolean> {
    this.probed ??= this.probe();
    return this.probed;
  }

  private async probe(): Promise<boolean> {
    if (!this.backendCanMount) {
      this.detail = 'the runtime is not isolated (TOOLGATE_SANDBOX=none): forks copy';
      return false;
    }
    if (process.getuid?.() !== 0) {
      this.detail = 'not running as root: overlayfs with redirect_dir needs trusted xattrs; forks copy';
      return false;
    }
    const dir = path.join(this.dir, `probe-${randomBytes(6).toString('hex')}`);
    try {
      for (const sub of ['l/d', 'u', 'w', 'm']) await makeDirs(path.join(dir, sub));
      await fs.writeFile(path.join(dir, 'l/d/x'), 'x');
      const mount = { cwd: dir, lowerDirs: ['l'], upperDir: 'u', workDir: 'w' };
      // A lower directory renamed in the merged view: what redirect_dir is needed for.
      const script = 'cd "$1" && mount -t overlay overlay -o "$2" m && mv m/d m/e && test -f m/e/x';
      await execFileAsync(
        'unshare',
        ['--mount', '--propagation', 'private', '/bin/sh', '-c', script, 'probe', dir, overlayOptions(mount)],
        { timeout: 10_000, env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' } },
      );
      this.detail = 'overlayfs (copy-on-write forks)';
      return true;
    } catch (err) {
      this.detail = `overlay probe failed: ${(err as Error).message.slice(0, 300)}; forks copy`;
      return false;
    } finally {
      await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  private sessionDir(sessionId: string): string {
    if (!SESSION_ID.test(sessionId)) throw new Error(`invalid session id: ${sessionId}`);
    return path.join(this.dir, 'sessions', sessionId);
  }

  /** Where a snapshot entry's content is in a lower tree (hard-linked blob; lives as long as the tree). */
  lowerFile(tree: string, entryPath: string): string {
    if (!TREE_ID.test(tree)) throw new Error(`bad tree id: ${tree.slice(0, 80)}`);
    const root = path.join(this.dir, 'trees', tree, 'tree');
    const full = path.join(root, entryPath);
    if (!full.startsWith(`${root}/`)) throw new Error(`bad path in a manifest: ${entryPath.slice(0, 80)}`);
    return full;
  }

  /** The session's overlay (read at every runtime start), or undefined for a plain workspace. */
  mountFor(sessionId: string): OverlayMount | undefined {
    let layers: Layers;
    try {
      layers = JSON.parse(
        readFileSync(path.join(this.sessionDir(sessionId), 'layers.json'), 'utf8'),
      ) as Layers;
    } catch {
      return undefined;
    }
    return {
      cwd: this.dir,
      lowerDirs: layers.lowers.filter((id) => TREE_ID.test(id)).map((id) => `trees/${id}/tree`),
      upperDir: `sessions/${sessionId}/upper`,
      workDir: `sessions/${sessionId}/work`,
    };
  }

  /**
   * Makes `sessionId`'s workspace an overlay of `entries` (file contents from `blobPath`, immutable blob
   * files on this filesystem). The upper dir starts empty: the workspace is the snapshot.
   */
  async create(
    sessionId: string,
    entries: readonly LowerEntry[],
    blobPath: (sha: string) => string,
  ): Promise<{ tree: string; built: boolean }> {
    const dir = this.sessionDir(sessionId);
    const tree = treeId(entries);
    const built = await this.serial.run(async () => {
      const treeDir = path.join(this.dir, 'trees', tree);
      let fresh = false;
      if (!(await exists(path.join(treeDir, 'tree')))) {
        await this.build(treeDir, entries, blobPath);
        fresh = true;
      }
      await makeDirs(path.join(treeDir, 'users'));
      await fs.writeFile(path.join(treeDir, 'users', sessionId), '');
      return fresh;
    });
    await makeDirs(path.join(dir, 'upper'), 0o700);
    await makeDirs(path.join(dir, 'work'), 0o700);
    const layers: Layers = { lowers: [tree] };
    await fs.writeFile(path.join(dir, 'layers.json.tmp'), JSON.stringify(layers));
    await fs.rename(path.join(dir, 'layers.json.tmp'), path.join(dir, 'layers.json'));
    return { tree, built };
  }

  private async build(treeDir: string, entries: readonly LowerEntry[], blobPath: (sha: string) => string) {
    const temp = path.join(treeDir, 'tree.tmp');
    await fs.rm(temp, { recursive: true, force: true });
    await makeDirs(temp, 0o700);
    const at = (relative: string) => {
      const full = path.join(temp, relative);
      if (!full.startsWith(`${temp}/`)) throw new Error(`bad path in a manifest: ${relative.slice(0, 80)}`);
      return full;
    };
    const dirs = entries.filter((e) => e.type === 'directory').sort((a, b) => (a.path < b.path ? -1 : 1));
    for (const entry of dirs) await fs.mkdir(at(entry.path), { mode: 0o700 });
    await makeDirs(path.join(this.dir, 'blobs'));
    const inodes = new Map<string, Promise<string>>();
    const inodeFor = (sha: string, mode: number) => {
      const key = `${sha}:${mode}`;
      let found = inodes.get(key);
      if (!found) {
        // One claim per blob at a time: a second mode must see the first one's chmod.
        const claim = inodes.get(sha) ?? Promise.resolve('');
        found = claim.then(() => this.blobInode(sha, mode, blobPath(sha)));
        inodes.set(key, found);
        inodes.set(sha, found);
      }
      return found;
    };
    const files = entries.filter((e) => e.type !== 'directory');
    let next = 0;
    const lane = async () => {
      while (next < files.length) {
        const entry = files[next++];
        const target = at(entry.path);
        if (entry.type === 'symlink') await fs.symlink(entry.linkTarget ?? '', target);
        else if (entry.size === 0 || !entry.sha256) await this.fresh(target, entry.mode);
        else await this.linkOrCopy(await inodeFor(entry.sha256, entry.mode), target, entry.mode);
      }
    };
    await Promise.all(Array.from({ length: 16 }, lane));
    // Deepest first, so a read-only directory gets its mode after its children are in place.
    for (const entry of [...dirs].reverse()) await fs.chmod(at(entry.path), entry.mode);
    await fs.rename(temp, path.join(treeDir, 'tree'));
  }

  private async fresh(target: string, mode: number) {
    await fs.writeFile(target, '', { mode });
    await fs.chmod(target, mode);
  }

  private async linkOrCopy(source: string, target: string, mode: number) {
    try {
      await fs.link(source, target);
    } catch (err) {
      // An inode has at most 65,000 links on ext4: past that, this file gets its own copy.
      if ((err as NodeJS.ErrnoException).code !== 'EMLINK') throw err;
      await fs.copyFile(source, target);
      await fs.chmod(target, mode);
    }
  }

  /** The inode with `sha`'s content and `mode` that lower trees link to (see the file comment). */
  private async blobInode(sha: string, mode: number, storeBlob: string): Promise<string> {
    if (!SHA256.test(sha)) throw new Error(`not a sha256: ${sha.slice(0, 80)}`);
    const blobs = path.join(this.dir, 'blobs');
    const shared = path.join(blobs, sha);
    // Usually claimed already (by an earlier fork): known here, or one stat.
    let claimed = this.claimedModes.get(sha) ?? (await fs.stat(shared).catch(() => undefined))?.mode;
    if (claimed === undefined) {
      try {
        await fs.link(storeBlob, shared);
        await fs.chmod(shared, mode);
        this.claimedModes.set(sha, mode);
        return shared;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'EEXIST' && code !== 'EMLINK') throw err;
      }
      claimed = (await fs.stat(shared).catch(() => undefined))?.mode;
    }
    if (claimed === undefined) return this.variant(sha, mode, storeBlob);
    claimed %= 0o10000;
    this.claimedModes.set(sha, claimed);
    if (claimed === mode) return shared;
    return this.variant(sha, mode, storeBlob);
  }

  /** A copy of the blob for a second mode of the same content. */
  private async variant(sha: string, mode: number, storeBlob: string): Promise<string> {
    const blobs = path.join(this.dir, 'blobs');
    const variant = path.join(blobs, `${sha}.${mode.toString(8)}`);
    if (await exists(variant)) return variant;
    const temp = `${variant}.${randomBytes(6).toString('hex')}.tmp`;
    await fs.copyFile(storeBlob, temp, constants.COPYFILE_FICLONE);
    await fs.chmod(temp, mode);
    await fs.rename(temp, variant);
    return variant;
  }

  /**
   * Removes the session's upper and work dirs and its use of the lower trees (the last user removes a
   * tree), then the blob inodes nothing else holds any more. Called for every deleted session (its
   * snapshot store may have been the last other holder of a blob inode), only when its runtime, and so
   * the mount, is gone.
   */
  async remove(sessionId: string): Promise<void> {
    const dir = this.sessionDir(sessionId);
    const lowers = this.layersOf(sessionId);
    await fs.rm(dir, { recursive: true, force: true });
    await this.serial.run(async () => {
      if (lowers.length > 0) await this.release(sessionId, lowers);
      await this.collectBlobs();
    });
  }

  private layersOf(sessionId: string): string[] {
    try {
      const layers = JSON.parse(
        readFileSync(path.join(this.sessionDir(sessionId), 'layers.json'), 'utf8'),
      ) as Layers;
      return layers.lowers.filter((id) => TREE_ID.test(id));
    } catch {
      return [];
    }
  }

  private async release(sessionId: string, trees: string[]): Promise<void> {
    for (const tree of trees) {
      const treeDir = path.join(this.dir, 'trees', tree);
      await fs.rm(path.join(treeDir, 'users', sessionId), { force: true });
      const users = await fs.readdir(path.join(treeDir, 'users')).catch(() => []);
      if (users.length === 0) {
        await fs.rm(treeDir, { recursive: true, force: true });
      }
    }
  }

  /** Blob inodes that only this directory still links to: no tree and no snapshot store holds them. */
  private async collectBlobs(): Promise<void> {
    const blobs = path.join(this.dir, 'blobs');
    const names = await fs.readdir(blobs).catch(() => [] as string[]);
    let next = 0;
    const lane = async () => {
      while (next < names.length) {
        const file = path.join(blobs, names[next++]);
        const stat = await fs.stat(file).catch(() => undefined);
        if (stat && stat.nlink === 1) {
          await fs.rm(file, { force: true });
          this.claimedModes.delete(path.basename(file));
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, lane));
  }

  /**
   * At start-up, after a crash between the steps of a delete or a fork: overlay dirs and tree uses of
   * sessions that no longer exist, then trees nobody uses and unused blob inodes. Returns the sessions swept.
   */
  async sweepOrphans(isLive: (sessionId: string) => Promise<boolean>): Promise<number> {
    const names = await fs.readdir(path.join(this.dir, 'sessions')).catch(() => [] as string[]);
    let swept = 0;
    for (const name of names) {
      if (!SESSION_ID.test(name) || (await isLive(name))) continue;
      await this.remove(name);
      swept++;
    }
    await this.serial.run(async () => {
      for (const tree of await fs.readdir(path.join(this.dir, 'trees')).catch(() => [] as string[])) {
        const users = path.join(this.dir, 'trees', tree, 'users');
        for (const user of await fs.readdir(users).catch(() => [] as string[])) {
          if (!SESSION_ID.test(user) || !(await isLive(user)))
            await fs.rm(path.join(users, user), { force: true });
        }
        if ((await fs.readdir(users).catch(() => [])).length === 0) {
          await fs.rm(path.join(this.dir, 'trees', tree), { recursive: true, force: true });
        }
      }
      await this.collectBlobs();
    });
    return swept;
  }
}
