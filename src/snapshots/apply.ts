// Making a workspace look like a snapshot again (restore, and filling a fork's new workspace): one scan
// finds what differs; only files whose content or mode differ are written back, from the blob store, as
// new files (never links to a blob: a command could change a linked file in place and so the blob);
// entries the snapshot does not have are removed, modes restored, symlinks recreated as symlinks.
import { posix } from 'node:path';
import type { Workspace } from '../runtime/workspace.js';
import type { ApplyFile, ScanEntry } from '../runtime/ops/snapshot.js';
import type { BlobStore } from './blob-store.js';
import { trustedKey, type Manifest, type ManifestEntry } from './manifest.js';
import { batches, type SnapshotLimits } from './take.js';

export interface Applied {
  /** The workspace's state now, with the keys of what was written (the next snapshot's reference). */
  readonly manifest: Manifest;
  readonly written: number;
  readonly removed: number;
  readonly unchanged: number;
}

/** Smaller than a read batch: writing one overlaps with reading the next from the store. */
const APPLY_BATCH_BYTES = 8 * 1024 * 1024;

const isUnder = (child: string, parent: string) => child.startsWith(`${parent}/`);

/** Entries to remove: not in the target, or of another type there. Only the topmost of a removed subtree. */
function removals(current: ScanEntry[], target: Map<string, ManifestEntry>): string[] {
  const out: string[] = [];
  for (const entry of current) {
    const wanted = target.get(entry.path);
    if (wanted && wanted.type === entry.type) continue;
    if (out.length > 0 && isUnder(entry.path, out[out.length - 1])) continue;
    out.push(entry.path);
  }
  return out;
}

export async function applySnapshot(
  workspace: Workspace,
  store: BlobStore,
  target: Manifest,
  /** What we knew of the workspace (its last snapshot): files whose key still matches are not rewritten. */
  head: Manifest | undefined,
  limits: SnapshotLimits,
  /** quiescent: nobody else can write the workspace (a fork being filled): see trustedKey. */
  options: { quiescent?: boolean } = {},
): Promise<Applied> {
  const { entries: current, scannedAtMs } = (
    await workspace.call('snapshotScan', { maxEntries: limits.maxEntries })
  ).result;
  const wanted = new Map(target.entries.map((entry) => [entry.path, entry]));
  const now = new Map(current.map((entry) => [entry.path, entry]));
  const headByPath = new Map((head?.entries ?? []).map((entry) => [entry.path, entry]));
  const remove = removals(current, wanted);
  const removedSet = new Set(remove);
  const survives = (path: string) => {
    for (let at = path; at !== '.'; at = posix.dirname(at)) if (removedSet.has(at)) return false;
    return true;
  };

  const dirs: { path: string; mode: number }[] = [];
  const chmodDirs: { path: string; mode: number }[] = [];
  const files: ManifestEntry[] = [];
  const symlinks: { path: string; target: string }[] = [];
  const result: ManifestEntry[] = [];
  let unchanged = 0;
  for (const entry of target.entries) {
    const existing = now.get(entry.path);
    const kept = existing && existing.type === entry.type && survives(entry.path) ? existing : undefined;
    if (entry.type === 'directory') {
      if (!kept || (kept.mode & 0o700) !== 0o700) dirs.push({ path: entry.path, mode: entry.mode });
      if (!kept || kept.mode !== entry.mode) chmodDirs.push({ path: entry.path, mode: entry.mode });
      result.push(entry);
    } else if (entry.type === 'symlink') {
      if (kept?.linkTarget === entry.linkTarget) unchanged++;
      else symlinks.push({ path: entry.path, target: entry.linkTarget ?? '' });
      result.push(entry);
    } else {
      const known = headByPath.get(entry.path);
      const same =
        kept !== undefined &&
        kept.mode === entry.mode &&
        known?.key !== undefined &&
        known.key === kept.key &&
        known.sha256 === entry.sha256;
      if (same) {
        unchanged++;
        result.push({ ...entry, key: known.key });
      } else files.push(entry);
    }
  }

  await workspace.call('snapshotApply', { remove, dirs });
  const written: { entry: ManifestEntry; key: string; ctimeMs: number }[] = [];
  // The next batch is read from the store while the runtime writes the current one.
  const fileBatches = batches(files, (entry) => entry.size, APPLY_BATCH_BYTES);
  const readBatch = (batch: ManifestEntry[]) => {
    const reading = Promise.all(batch.map((entry) => store.read(entry.sha256!)));
    // Awaited below; if a write fails first, a failed read-ahead must not become an unhandled rejection.
    reading.catch(() => undefined);
    return reading;
  };
  let next = fileBatches.length > 0 ? readBatch(fileBatches[0]) : undefined;
  for (const [index, batch] of fileBatches.entries()) {
    const contents = await next!;
    next = index + 1 < fileBatches.length ? readBatch(fileBatches[index + 1]) : undefined;
    const args: ApplyFile[] = batch.map((entry, i) => ({
      path: entry.path,
      mode: entry.mode,
      size: contents[i].length,
      mtimeMs: entry.mtimeMs,
    }));
    const { keys, ctimesMs } = (
      await workspace.call(
        'snapshotApply',
        { files: args, atomic: !options.quiescent },
        Buffer.concat(contents),
      )
    ).result;
    batch.forEach((entry, i) => {
      const { key: _old, ...rest } = entry;
      written.push({ entry: rest, key: keys[i], ctimeMs: ctimesMs[i] });
    });
  }
  const sinceMs = options.quiescent ? Date.now() : scannedAtMs;
  for (const { entry, key, ctimeMs } of written) {
    const trusted = trustedKey(key, ctimeMs, sinceMs);
    result.push(trusted ? { ...entry, key: trusted } : entry);
  }
  // Deepest first, so a read-only parent is made read-only after its children got their modes.
  chmodDirs.sort((a, b) => b.path.length - a.path.length);
  await workspace.call('snapshotApply', { symlinks, chmodDirs });
  const order = new Map(target.entries.map((entry, i) => [entry.path, i]));
  result.sort((a, b) => order.get(a.path)! - order.get(b.path)!);
  return {
    manifest: { takenAt: Date.now(), entries: result },
    written: files.length + symlinks.length,
    removed: remove.length,
    unchanged,
  };
}
