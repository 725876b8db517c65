// `mkdir -p` that reports the real reason. Node's recursive mkdir turns every failure below an existing
// ancestor into ENOENT (a read-only mount, a full disk, a missing permission all read "no such file"),
// which would send a caller to look for a missing file. On ENOENT this creates the first missing level
// without `recursive`, so the kernel's own code (EROFS, ENOSPC, EACCES…) is what the caller sees.
import { mkdirSync, promises as fs } from 'node:fs';
import path from 'node:path';

// The mkdir itself is synchronous: a few microseconds of kernel work for a directory that exists or
// can be made, where a thread-pool round trip cost about a tenth of a millisecond here, on every write.
export async function makeDirs(dir: string, mode?: number): Promise<void> {
  try {
    mkdirSync(dir, { recursive: true, mode });
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    throw (await realReason(dir, mode)) ?? err;
  }
}

/** The nearest path at or above `dir` that exists, and the missing levels below it, top first. */
export async function nearestExisting(dir: string): Promise<{ existing: string; missing: string[] }> {
  const missing: string[] = [];
  let current = dir;
  for (;;) {
    const exists = await fs.lstat(current).then(
      () => true,
      () => false,
    );
    if (exists) return { existing: current, missing };
    const parent = path.dirname(current);
    if (parent === current) return { existing: current, missing };
    missing.unshift(current);
    current = parent;
  }
}

/** The error of creating the first missing directory on the way to `dir`; undefined if none fails. */
async function realReason(dir: string, mode: number | undefined): Promise<unknown> {
  for (const level of (await nearestExisting(dir)).missing) {
    try {
      await fs.mkdir(level, { mode });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return err;
    }
  }
  return undefined;
}
