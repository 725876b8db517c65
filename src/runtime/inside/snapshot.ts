// Snapshot operations inside the runtime (see ../ops/snapshot.ts): the scan, reads by descriptor, and
// writing a snapshot's entries back. Nothing here follows a symlink: links are recorded and recreated
// as links, and every path is resolved in the runtime's own view, where nothing outside the workspace exists.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  futimesSync,
  lstatSync,
  openSync,
  promises as fs,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
  type BigIntStats,
} from 'node:fs';
import path from 'node:path';
import { fromFsError, isToolgateError, toolgateError } from '../../lib/errors.js';
import { makeDirs } from '../../lib/make-dirs.js';
import type { ScanEntry, SnapshotOps } from '../ops/snapshot.js';
import { readMany } from './read-many.js';
import { reply, type Handlers } from './handler.js';

/** Temp files of our own atomic writes: transient, never part of a snapshot. */
const TEMP_FILE = /^\..+\.tg-[0-9a-f]{12}\.tmp$/;
const YIELD_EVERY = 1024;

export const statKey = (stat: BigIntStats): string =>
  `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;

const ms = (ns: bigint) => Number(ns / 1_000_000n);

async function scan(root: string, maxEntries: number, signal: AbortSignal): Promise<ScanEntry[]> {
  const entries: ScanEntry[] = [];
  let sinceYield = 0;
  const visit = async (dir: string, prefix: string): Promise<void> => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return; // removed while we walked
    }
    for (const name of names) {
      if (signal.aborted) throw toolgateError('TIMEOUT', 'The snapshot was cancelled');
      if (TEMP_FILE.test(name)) continue;
      const full = path.join(dir, name);
      const relative = prefix === '' ? name : `${prefix}/${name}`;
      const stat = lstatSync(full, { bigint: true, throwIfNoEntry: false });
      if (!stat) continue;
      const common = { path: relative, mode: Number(stat.mode & 0o7777n), mtimeMs: ms(stat.mtimeNs) };
      if (stat.isFile()) {
        entries.push({
          ...common,
          type: 'file',
          size: Number(stat.size),
          key: statKey(stat),
          ctimeMs: ms(stat.ctimeNs),
        });
      } else if (stat.isSymbolicLink()) {
        const linkTarget = await fs.readlink(full).catch(() => null);
        if (linkTarget !== null) entries.push({ ...common, type: 'symlink', size: 0, linkTarget });
      } else if (stat.isDirectory()) {
        entries.push({ ...common, type: 'directory', size: 0 });
      } else continue;
      if (entries.length > maxEntries) {
        throw toolgateError('FILE_TOO_LARGE', `The workspace holds more than ${maxEntries} entries`, {
          suggestion: 'Remove generated files (build output, dependencies) before taking a snapshot.',
          details: { limit: maxEntries },
        });
      }
      if (++sinceYield >= YIELD_EVERY) {
        sinceYield = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (stat.isDirectory()) await visit(full, relative);
    }
  };
  await visit(root, '');
  return entries;
}

const guard = async <T>(relative: string, work: () => Promise<T>): Promise<T> => {
  try {
    return await work();
  } catch (err) {
    if (isToolgateError(err)) throw err;
    throw fromFsError(err, relative);
  }
};

/**
 * rm -rf that also removes what a command made read-only (a Go module cache, a `chmod -w` directory):
 * on EACCES/EPERM, directories in the way (the parent and everything below) are made owner-writable
 * and the removal is tried once more. Never follows a symlink (lstat, and chmod only on directories).
 */
async function removeTree(absolute: string): Promise<void> {
  try {
    await fs.rm(absolute, { recursive: true, force: true });
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM') throw err;
  }
  const unlock = async (dir: string): Promise<void> => {
    const stat = await fs.lstat(dir).catch(() => null);
    if (!stat?.isDirectory()) return;
    if ((stat.mode & 0o700) !== 0o700) await fs.chmod(dir, (stat.mode & 0o7777) | 0o700);
    for (const name of await fs.readdir(dir)) await unlock(path.join(dir, name));
  };
  const parent = path.dirname(absolute);
  const parentStat = await fs.lstat(parent);
  if ((parentStat.mode & 0o200) === 0) await fs.chmod(parent, (parentStat.mode & 0o7777) | 0o700);
  await unlock(absolute);
  await fs.rm(absolute, { recursive: true, force: true });
}

/**
 * Writes one file of a snapshot: atomically (temp file + rename) when others may be looking, else in
 * place (a fork's fresh workspace). Never through a symlink (O_NOFOLLOW, O_EXCL for the temp file); a
 * directory in the way is removed. Returns the key of what is there after, '' if the name was swapped.
 */
function writeFileSync(
  absolute: string,
  bytes: Uint8Array,
  file: { mode: number; mtimeMs: number },
  atomic: boolean,
): { key: string; ctimeMs: number } {
  const existing = lstatSync(absolute, { throwIfNoEntry: false });
  if (existing?.isDirectory()) rmSync(absolute, { recursive: true, force: true });
  const where = atomic
    ? path.join(
        path.dirname(absolute),
        `.${path.basename(absolute)}.tg-${randomBytes(6).toString('hex')}.tmp`,
      )
    : absolute;
  const flags = atomic
    ? constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW
    : constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
  const fd = openSync(where, flags, 0o600);
  let ino: bigint;
  try {
    for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done);
    fchmodSync(fd, file.mode & 0o7777);
    const when = new Date(file.mtimeMs);
    futimesSync(fd, when, when);
    ino = fstatSync(fd, { bigint: true }).ino;
  } catch (err) {
    closeSync(fd);
    if (atomic) rmSync(where, { force: true });
    throw err;
  }
  closeSync(fd);
  if (atomic) {
    try {
      renameSync(where, absolute);
    } catch (err) {
      rmSync(where, { force: true });
      throw err;
    }
  }
  // rename moves the ctime: the key is taken after it, and only if the name still holds our file.
  const after = lstatSync(absolute, { bigint: true, throwIfNoEntry: false });
  return { key: after && after.ino === ino ? statKey(after) : '', ctimeMs: after ? ms(after.ctimeNs) : 0 };
}

export const snapshotHandlers: Handlers<SnapshotOps> = {
  async snapshotScan({ maxEntries }, _payload, { paths, signal }) {
    const scannedAtMs = Date.now();
    return reply({ entries: await scan(paths.root, maxEntries, signal), scannedAtMs });
  },

  async snapshotRead({ paths: wanted }, _payload, { paths }) {
    const keys: (string | null)[] = new Array(wanted.length).fill(null);
    const ctimes: (number | null)[] = new Array(wanted.length).fill(null);
    const { sizes, payload } = await readMany(wanted.length, async (i) => {
      try {
        const target = await paths.resolve(wanted[i], { followFinalSymlink: false });
        const handle = await fs.open(
          target.absolute,
          constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY,
        );
        try {
          const stat = await handle.stat({ bigint: true });
          if (!stat.isFile()) return null;
          const content = await handle.readFile();
          // The key after the read: a write while we read changes it, and the next snapshot reads again.
          const after = await handle.stat({ bigint: true });
          keys[i] = statKey(after);
          ctimes[i] = ms(after.ctimeNs);
          return content;
        } finally {
          await handle.close();
        }
      } catch {
        // Gone, replaced by a link or a directory, unreadable: reported as null.
        return null;
      }
    });
    return reply({ sizes, keys, ctimesMs: ctimes }, payload);
  },

  async snapshotApply(args, payload, { paths, usage }) {
    usage.invalidate();
    const resolve = async (input: string) => {
      const target = await paths.resolve(input, { followFinalSymlink: false });
      if (target.relative === '.') throw toolgateError('INVALID_PATH', 'A snapshot entry cannot be the root');
      return target;
    };
    for (const input of args.remove ?? []) {
      const target = await resolve(input);
      await guard(target.relative, () => removeTree(target.absolute));
    }
    for (const dir of args.dirs ?? []) {
      const target = await resolve(dir.path);
      await guard(target.relative, async () => {
        const existing = await fs.lstat(target.absolute).catch(() => null);
        if (existing && !existing.isDirectory()) await removeTree(target.absolute);
        // Owner-writable while we fill it; the snapshot's mode is set at the end (chmodDirs).
        if (existing?.isDirectory() && (existing.mode & 0o700) !== 0o700)
          await fs.chmod(target.absolute, (existing.mode & 0o7777) | 0o700);
        else await makeDirs(target.absolute, 0o755);
      });
    }
    const keys: string[] = [];
    const ctimesMs: number[] = [];
    const madeDirs = new Set<string>();
    let offset = 0;
    let sinceYield = 0;
    // Each directory is resolved once (symlinks and all, as any path is); the file itself is opened
    // with O_NOFOLLOW, so a symlink under its name is refused, never followed.
    const parents = new Map<string, string>();
    for (const file of args.files ?? []) {
      const slash = file.path.lastIndexOf('/');
      const parentPath = slash < 0 ? '.' : file.path.slice(0, slash);
      const name = file.path.slice(slash + 1);
      if (!name || name === '.' || name === '..') throw toolgateError('INVALID_PATH', 'Bad snapshot entry');
      let parent = parents.get(parentPath);
      if (parent === undefined) {
        parent = (await paths.resolve(parentPath)).absolute;
        parents.set(parentPath, parent);
      }
      const absolute = path.join(parent, name);
      const relative = paths.toRelative(absolute);
      const bytes = payload.subarray(offset, offset + file.size);
      offset += file.size;
      const written = await guard(relative, async () => {
        if (!madeDirs.has(parent)) {
          await makeDirs(parent);
          madeDirs.add(parent);
        }
        return writeFileSync(absolute, bytes, file, args.atomic !== false);
      });
      keys.push(written.key);
      ctimesMs.push(written.ctimeMs);
      // Synchronous writes are several times faster than the promise API for many small files; yield
      // now and then so the session's other traffic (command output) keeps flowing.
      if (++sinceYield >= 256) {
        sinceYield = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    for (const link of args.symlinks ?? []) {
      const target = await resolve(link.path);
      await guard(target.relative, async () => {
        await removeTree(target.absolute);
        await makeDirs(path.dirname(target.absolute));
        await fs.symlink(link.target, target.absolute);
      });
    }
    for (const dir of args.chmodDirs ?? []) {
      const target = await resolve(dir.path);
      await guard(target.relative, () => fs.chmod(target.absolute, dir.mode & 0o7777));
    }
    return reply({ keys, ctimesMs });
  },
};
