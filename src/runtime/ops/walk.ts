// Walks of the workspace, run inside the runtime: list_directory, glob, grep (ripgrep too) and
// file_info's scan. Each is one operation, so a walk costs one round trip, not one per entry.

export type ListedType = 'file' | 'directory' | 'symlink' | 'other';

export interface ListedEntry {
  readonly path: string;
  readonly type: ListedType;
  readonly size: number;
}

export interface GrepHit {
  /** Workspace-relative. */
  readonly path: string;
  readonly line: number;
  /** The matching line (several lines for a multiline match), without its line terminator. */
  readonly text: string;
  /** True for a context line around a match. */
  readonly context: boolean;
}

export type EngineChoice = 'auto' | 'ripgrep' | 'javascript';
export type EngineName = 'ripgrep' | 'javascript';

export interface GrepArgs {
  readonly path: string;
  readonly pattern: string;
  readonly fixedStrings: boolean;
  readonly caseInsensitive: boolean;
  readonly multiline: boolean;
  readonly context: number;
  readonly globs: string[];
  readonly maxHits: number;
  readonly engine: EngineChoice;
  /**
   * Only how many lines match in each file (files_with_matches and count modes), in `counts` (absent
   * when nothing was searched): ripgrep then prints `path NUL count` per file instead of a JSON event
   * per match, and nothing per match crosses the pipe.
   */
  readonly countOnly?: boolean;
  /**
   * Content mode with ripgrep: the caller shows at most this many matches (offset + limit). The runtime
   * then counts matching lines per file first (cheap, nothing per match crosses the pipe), and searches
   * for hits only in the first files, in path order, that hold that many; `counts` covers every file.
   */
  readonly pageMatches?: number;
}

export interface GrepCount {
  readonly path: string;
  readonly count: number;
}

export interface FileScan {
  readonly sha256: string;
  readonly binary: boolean;
  readonly newlines: number;
  readonly crlf: number;
  readonly endsWithNewline: boolean;
  readonly bom: boolean;
}

export interface WalkOps {
  /** Breadth-first listing to `depth`, `heavy` directories listed but not entered, at most `max` entries. */
  listDirectory: {
    args: { path: string; depth: number; ignore: string[]; heavy: string[]; max: number };
    result: { relative: string; entries: ListedEntry[]; truncated: boolean; skipped: string[] };
  };
  /** Every file matching the pattern under `path` (with mtimes), .gitignore applied unless told not to. */
  glob: {
    args: { path: string; pattern: string; includeIgnored: boolean };
    result: { relative: string; found: { path: string; mtimeMs: number }[] };
  };
  grep: {
    args: GrepArgs;
    result: { relative: string; hits: GrepHit[]; counts?: GrepCount[]; capped: boolean; engine: EngineName };
  };
  /** lstat plus, for a regular file, one pass over its bytes (hash, lines, binary, BOM). */
  fileInfo: {
    args: { path: string };
    result: {
      relative: string;
      type: ListedType;
      size: number;
      mtimeMs: number;
      mode: number;
      /** Symlinks: the target's relative path when it is inside the workspace, else null. */
      linkTarget?: string | null;
      scan?: FileScan;
    };
  };
}
