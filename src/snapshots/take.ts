// Taking a snapshot: one stat-only scan in the runtime, then reads of only the files whose stat key is
// not in the previous snapshot (new or changed since), hashed here and stored as blobs. A snapshot of
// an unchanged tree reads no file and adds no blob: its cost is the scan and the manifest.
import { createHash } from 'node:crypto';
import type { Workspace } from '../runtime/workspace.js';
import type { ScanEntry } from '../runtime/ops/snapshot.js';
import { eachInParallel, type BlobStore } from './blob-store.js';
import { byPath, trustedKey, type Manifest, type ManifestEntry } from './manifest.js';

/** Bytes of file content per read round trip: bounds the memory of one batch. */
export const BATCH_BYTES = 32 * 1024 * 1024;
const BATCH_FILES = 4096;

export interface SnapshotLimits {
  /** Directories, files and symlinks in one snapshot. */
  readonly maxEntries: number;
}

export interface TakeOptions {
  /** Nothing else can write the workspace now (a session being created): see trustedKey. */
  readonly quiescent?: boolean;
}

export interface Taken {
  readonly manifest: Manifest;
  /** Content bytes newly added to the store. */
  readonly addedBytes: number;
  /** Files whose bytes were read (the rest were matched by stat key). */
  readonly filesRead: number;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Groups items into batches of at most `maxBytes` (a larger item gets a batch of its own). */
export function batches<T>(items: readonly T[], size: (item: T) => number, maxBytes = BATCH_BYTES): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    if (current.length > 0 && (bytes + size(item) > maxBytes || current.length >= BATCH_FILES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size(item);
  }
  if (current.length > 0) out.push(current);
  return out;
}

export async function takeSnapshot(
  workspace: Workspace,
  store: BlobStore,
  previous: Manifest | undefined,
  limits: SnapshotLimits,
  options: TakeOptions = {},
): Promise<Taken> {
  const { entries: scanned, scannedAtMs } = (
    await workspace.call('snapshotScan', { maxEntries: limits.maxEntries })
  ).result;
  const known = previous ? byPath(previous) : new Map<string, ManifestEntry>();
  const entries: (ManifestEntry | null)[] = [];
  const toRead: { index: number; scan: ScanEntry }[] = [];
  for (const scan of scanned) {
    const base = {
      path: scan.path,
      type: scan.type,
      mode: scan.mode,
      size: scan.size,
      mtimeMs: scan.mtimeMs,
    };
    if (scan.type === 'symlink') entries.push({ ...base, linkTarget: scan.linkTarget });
    else if (scan.type === 'directory') entries.push(base);
    else {
      const before = known.get(scan.path);
      if (before?.key !== undefined && before.key === scan.key && before.sha256) {
        entries.push({ ...base, sha256: before.sha256, key: before.key });
      } else {
        toRead.push({ index: entries.length, scan });
        entries.push(null);
      }
    }
  }
  let addedBytes = 0;
  const fresh: { index: number; key: string | null; ctimeMs: number | null }[] = [];
  for (const batch of batches(toRead, (item) => item.scan.size)) {
    const { result, payload } = await workspace.call('snapshotRead', {
      paths: batch.map((item) => item.scan.path),
    });
    const offsets: number[] = [];
    let offset = 0;
    for (const size of result.sizes) {
      offsets.push(offset);
      offset += size ?? 0;
    }
    await eachInParallel([...batch.keys()], 16, async (i) => {
      const { index, scan } = batch[i];
      const size = result.sizes[i];
      // Gone or no longer a regular file since the scan: not part of this snapshot.
      if (size === null) return;
      const bytes = payload.subarray(offsets[i], offsets[i] + size);
      const sha = sha256(bytes);
      if (await store.put(sha, bytes)) addedBytes += size;
      fresh.push({ index, key: result.keys[i], ctimeMs: result.ctimesMs[i] });
      entries[index] = {
        path: scan.path,
        type: 'file',
        mode: scan.mode,
        size,
        mtimeMs: scan.mtimeMs,
        sha256: sha,
      };
    });
  }
  const sinceMs = options.quiescent ? Date.now() : scannedAtMs;
  for (const { index, key, ctimeMs } of fresh) {
    const trusted = trustedKey(key, ctimeMs, sinceMs);
    const entry = entries[index];
    if (trusted && entry) entries[index] = { ...entry, key: trusted };
  }
  return {
    manifest: { takenAt: scannedAtMs, entries: entries.filter((e): e is ManifestEntry => e !== null) },
    addedBytes,
    filesRead: toRead.length,
  };
}
