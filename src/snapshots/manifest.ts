// A snapshot of a workspace: one entry per directory, regular file and symlink, with each file's
// content named by its SHA-256 in the session's blob store. Also the rule that decides when a file's
// stat key may stand in for reading it again.

export interface ManifestEntry {
  /** Workspace-relative POSIX path. */
  readonly path: string;
  readonly type: 'file' | 'directory' | 'symlink';
  /** Permission bits. */
  readonly mode: number;
  readonly size: number;
  readonly mtimeMs: number;
  /** Files: the blob holding the content. */
  readonly sha256?: string;
  readonly linkTarget?: string;
  /**
   * Files: the stat key (dev, inode, size, mtime and ctime in ns) of the version that was hashed, kept
   * only when it can be trusted (see trustedKey). A later snapshot that finds the same key reuses the
   * hash without reading the file.
   */
  readonly key?: string;
}

export interface Manifest {
  readonly takenAt: number;
  readonly entries: ManifestEntry[];
}

export const EMPTY_MANIFEST: Manifest = { takenAt: 0, entries: [] };

/**
 * Filesystem timestamps advance in clock ticks (a few ms on Linux), so a write in the same tick as our
 * look at a file could leave size, mtime and ctime all unchanged ("racy git"). A key is only kept when
 * the file's ctime is older, by more than a tick, than `sinceMs`: the earliest moment another writer
 * could have changed the file unseen. That is the scan's start while commands may run; for a workspace
 * nobody else can write yet (a session being created or forked), the end of our own work. A fresher
 * file is simply read again next time.
 */
export const RACY_MARGIN_MS = 100;

export const trustedKey = (
  key: string | null | undefined,
  ctimeMs: number | null | undefined,
  sinceMs: number,
): string | undefined =>
  key && ctimeMs !== null && ctimeMs !== undefined && ctimeMs < sinceMs - RACY_MARGIN_MS ? key : undefined;

/** Git's file modes: only the executable bit and symlinks are recorded. */
export const gitMode = (entry: Pick<ManifestEntry, 'type' | 'mode'>): string =>
  entry.type === 'symlink' ? '120000' : entry.mode & 0o111 ? '100755' : '100644';

export const byPath = (manifest: Manifest): Map<string, ManifestEntry> =>
  new Map(manifest.entries.map((entry) => [entry.path, entry]));

/** Every blob a manifest refers to. */
export const blobsOf = (manifest: Manifest): Set<string> =>
  new Set(manifest.entries.flatMap((entry) => (entry.sha256 ? [entry.sha256] : [])));

/** Bytes of file content in a manifest. */
export const contentBytes = (manifest: Manifest): number =>
  manifest.entries.reduce((sum, entry) => sum + (entry.type === 'file' ? entry.size : 0), 0);
