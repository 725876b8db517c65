// Reads for the code index and the project tools: one walk for the file list, then many files per round
// trip. Parsing stays in the service; only bytes cross.

export interface SourceFile {
  /** Workspace-relative POSIX path. */
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/** Which files a walk keeps: all, or those with one of the extensions (and none of the excluded endings). */
export interface SourceFilter {
  readonly extensions?: readonly string[];
  readonly excludeSuffixes?: readonly string[];
}

export interface SourceOps {
  /**
   * Regular files under `path` (symlinks never followed, heavy folders and .gitignore'd files skipped,
   * FIFOs and devices left out), in name order, at most maxFiles.
   */
  walkSource: {
    args: { path: string; filter: SourceFilter; maxFiles: number };
    result: { files: SourceFile[]; truncated: boolean };
  };
  /**
   * The contents of many files, concatenated in the payload; `sizes[i]` is null when file i is missing,
   * not a regular file, or larger than maxBytesEach.
   */
  readFiles: {
    args: { paths: string[]; maxBytesEach: number };
    result: { sizes: (number | null)[] };
  };
}
