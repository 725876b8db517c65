// Transfers of bytes in and out of the workspace that are too big for one frame: raw file uploads and
// downloads, archive extraction and packing. Each opens a stream inside the runtime (an id), which the
// service then feeds (streamWrite, in order) or drains (streamRead) in chunks of about a megabyte, so
// neither side ever holds a whole file or archive in memory. streamClose drops a stream at any point;
// what it had written is removed (an upload's temp file, an extraction's staging directory).

import type { FileStat } from './files.js';

export type ArchiveFormat = 'tar' | 'tar.gz' | 'zip';

/** Caps on one archive extraction (see config `archive`). */
export interface ArchiveLimits {
  readonly maxEntries: number;
  /** Total bytes of the extracted files. */
  readonly maxBytes: number;
  /** Extracted bytes per compressed byte, checked once more than ratioFloorBytes were extracted. */
  readonly maxRatio: number;
  readonly ratioFloorBytes: number;
}

export interface ExtractResult {
  readonly relative: string;
  readonly format: ArchiveFormat;
  readonly files: number;
  readonly directories: number;
  readonly symlinks: number;
  /** Bytes of the extracted files. */
  readonly bytes: number;
}

export interface UploadResult {
  readonly relative: string;
  readonly created: boolean;
  readonly stat: FileStat;
  readonly sha256: string;
  readonly bytes: number;
}

export interface TransferOps {
  /**
   * Starts an atomic upload to `path`: a temp file beside it (parents created). `expectedSha256` is a
   * compare-and-swap on what is there now ("" = must not exist): CONFLICT otherwise, nothing written.
   * Refuses more than maxBytes, and more than the workspace quota allows.
   */
  uploadOpen: {
    args: { path: string; expectedSha256?: string; maxBytes: number };
    /**
     * `fd`: the runtime's descriptor of the temp file, which the service may reopen through /proc and
     * write itself (see runtime/reopen-descriptor.ts) instead of sending the bytes in streamWrite frames;
     * `allowance`: the most bytes the upload may have (its size limit or what the quota leaves).
     */
    result: { stream: number; relative: string; fd: number; allowance: number };
  };
  /** Opens a regular file for reading bytes [start, end] (inclusive; default the whole file). */
  downloadOpen: {
    args: { path: string; start?: number; end?: number };
    result: { stream: number; relative: string; size: number; mtimeMs: number; sha256: string };
  };
  /** Only hashes and stats a file (a conditional GET that will answer 304 or 416). */
  fileDigest: {
    args: { path: string };
    result: { relative: string; size: number; mtimeMs: number; sha256: string };
  };
  /** Starts an extraction into the directory `path` (created if missing); the format is sniffed. */
  extractOpen: {
    args: { path: string; limits: ArchiveLimits };
    result: { stream: number; relative: string };
  };
  /** Packs the subtree at `path` into a tar.gz or zip, optionally without .gitignored files and .git. */
  packOpen: {
    args: { path: string; format: 'tar.gz' | 'zip'; gitignore: boolean };
    result: { stream: number; relative: string };
  };
  /**
   * Clones a repository into the (empty) workspace root with git, redirects off, only the URL's own
   * protocol allowed; `ref` (branch, tag or commit) is checked out. The service checked the host first.
   */
  gitClone: {
    args: { url: string; ref?: string; timeoutMs: number };
    result: { head: string };
  };
  /** Appends the payload to a writing stream. */
  streamWrite: { args: { stream: number }; result: { bytes: number } };
  /** The next chunk (payload) of a reading stream, at most about maxBytes; eof after the last. */
  streamRead: { args: { stream: number; maxBytes: number }; result: { eof: boolean } };
  /**
   * Ends a writing stream and commits it: an upload's rename, an extraction's move into place. `written`:
   * the service wrote an upload's bytes through the reopened descriptor instead of streamWrite, and says
   * how many; the runtime checks the count against the file and the allowance, and hashes the file.
   */
  streamFinish: {
    args: { stream: number; written?: { bytes: number } };
    result: UploadResult | ExtractResult;
  };
  /** Drops a stream; whatever it wrote is removed. Unknown ids are ignored. */
  streamClose: { args: { stream: number }; result: Record<string, never> };
}
