// Operations on single paths, run inside the session runtime. Every path argument is what the caller
// gave (workspace-relative, "/" = the root); the runtime resolves it in its own view of the world, where
// nothing outside the workspace is writable or even present, and answers with the relative form.

export type EntryType = 'file' | 'directory' | 'symlink' | 'fifo' | 'socket' | 'device' | 'other';

export interface FileStat {
  readonly type: EntryType;
  readonly size: number;
  readonly mtimeMs: number;
  /** Permission bits (mode & 0o7777). */
  readonly mode: number;
  /** Hard links to the inode (files only matter: >1 means another name shares the content). */
  readonly nlink: number;
}

export interface DirEntry {
  readonly name: string;
  readonly type: EntryType;
}

export interface FileOps {
  /** The path's relative form, after the confinement checks (symlinks resolved unless told not to). */
  resolve: { args: { path: string; followFinalSymlink?: boolean }; result: { relative: string } };
  /** stat (or lstat with follow: false); null when nothing is there. */
  stat: {
    args: { path: string; follow?: boolean };
    result: { relative: string; stat: FileStat | null; linkTarget?: string };
  };
  /**
   * A regular file's bytes (in the payload), opened without blocking and checked on the open descriptor,
   * so a FIFO or device swapped in is refused rather than hung on. Over maxBytes: FILE_TOO_LARGE.
   */
  readFile: {
    args: { path: string; maxBytes: number; followFinalSymlink?: boolean };
    result: { relative: string; stat: FileStat; sha256: string };
  };
  /** SHA-256 of a regular file; null when missing (or not a regular file). */
  hashFile: { args: { path: string }; result: { relative: string; sha256: string | null } };
  /**
   * Atomic replace with the payload (temp file + fsync + rename), parents created, mode kept (or set).
   * The new mtime is always later than the old one, so mtime-and-size caches (Python's .pyc) see the change.
   */
  writeFile: {
    args: { path: string; mode?: number };
    result: { relative: string; created: boolean; stat: FileStat };
  };
  mkdir: { args: { path: string }; result: { relative: string; created: boolean } };
  /** Removes a file, symlink or (recursive) directory; never follows the final symlink. */
  remove: { args: { path: string; recursive?: boolean }; result: { relative: string; existed: boolean } };
  /** rename(2); parents of the destination created. Both ends are resolved without following the last link. */
  rename: { args: { from: string; to: string }; result: { from: string; to: string } };
  symlink: { args: { target: string; path: string }; result: { relative: string } };
  chmod: { args: { path: string; mode: number }; result: { relative: string } };
  readdir: { args: { path: string }; result: { relative: string; entries: DirEntry[] } };
  /** Bytes and regular files under the root (symlinks not followed). */
  usage: { args: Record<string, never>; result: { bytes: number; files: number } };
  /** Empties the workspace (session delete), from inside, where no swapped symlink can lead out. */
  clear: { args: Record<string, never>; result: { removed: number } };
  /** Liveness and resource use of the runtime process itself. */
  ping: { args: Record<string, never>; result: { rssBytes: number; cpuUserMs: number; cpuSystemMs: number } };
}
