// Workspace snapshots, as the runtime sees them: a stat-only scan of the whole tree, reads of the files
// whose contents the service's blob store lacks, and the application of a snapshot back onto the tree.
// The blob store and manifests live in the service's data dir; only file bytes cross (see docs/checkpoints.md).

/** One entry of a scan. Directories, regular files and symlinks only; FIFOs, sockets and devices are left out. */
export interface ScanEntry {
  /** Workspace-relative POSIX path. */
  readonly path: string;
  readonly type: 'file' | 'directory' | 'symlink';
  /** Permission bits (mode & 0o7777). */
  readonly mode: number;
  readonly size: number;
  /**
   * Files: what identifies this version of the file without reading it — device, inode, size, mtime and
   * ctime in nanoseconds (`dev:ino:size:mtimeNs:ctimeNs`). ctime cannot be set by a process, so any
   * write, chmod or rename changes the key.
   */
  readonly key?: string;
  /** Files: ctime in ms, to tell keys that are too fresh to trust (see snapshots/manifest.ts). */
  readonly ctimeMs?: number;
  readonly mtimeMs: number;
  /** Symlinks: the target as written. */
  readonly linkTarget?: string;
}

export interface ApplyFile {
  readonly path: string;
  readonly mode: number;
  /** Bytes of this file in the payload, in order. */
  readonly size: number;
  /** Modification time to set (ms), so tools keyed on mtimes see the snapshot's times. */
  readonly mtimeMs: number;
}

export interface SnapshotOps {
  /** Every directory, file and symlink under the root, never following a symlink; name order. */
  snapshotScan: {
    args: { maxEntries: number };
    result: { entries: ScanEntry[]; scannedAtMs: number };
  };
  /**
   * Contents of regular files (symlinks never followed), concatenated in the payload. `sizes[i]` is null
   * when path i is no longer a regular file; `keys[i]` is the key of what was read (fstat of the descriptor).
   */
  snapshotRead: {
    args: { paths: string[] };
    result: { sizes: (number | null)[]; keys: (string | null)[]; ctimesMs: (number | null)[] };
  };
  /**
   * Makes part of the tree look like a snapshot, in this order: `remove` (recursively, never following
   * a symlink), `dirs` created, `files` written from the payload (temp file + rename, mode set),
   * `symlinks` created, then `chmodDirs`. Returns the key of every file written.
   */
  snapshotApply: {
    args: {
      remove?: string[];
      dirs?: { path: string; mode: number }[];
      files?: ApplyFile[];
      symlinks?: { path: string; target: string }[];
      chmodDirs?: { path: string; mode: number }[];
      /** false: write files in place (nobody else can see the workspace yet, e.g. a fork being filled). */
      atomic?: boolean;
    };
    result: { keys: string[]; ctimesMs: number[] };
  };
}
