// What a grep engine gets and gives back; ripgrep and the JavaScript engine return the same hits.

export interface GrepQuery {
  pattern: string;
  fixedStrings: boolean;
  caseInsensitive: boolean;
  multiline: boolean;
  context: number;
  /** rg-style globs: "*.ts" keeps matching files, "!dist" drops matching files and directories. */
  globs: string[];
  /** Host path of the workspace root. */
  workspaceRoot: string;
  /** Host path of the file or directory to search. */
  searchPath: string;
  /** Stop once this many hits (matches and context lines) are collected. */
  maxHits: number;
  signal: AbortSignal;
}

export interface GrepHit {
  /** Workspace-relative. */
  path: string;
  line: number;
  /** The matching line (several lines for a multiline match), without its line terminator. */
  text: string;
  /** True for a context line around a match. */
  context: boolean;
}

export interface EngineResult {
  hits: GrepHit[];
  /** True when maxHits stopped the search early. */
  capped: boolean;
}

export type GrepEngine = (query: GrepQuery) => Promise<EngineResult>;

/** Both engines report text the same way: LF only, no trailing terminator. */
export const normalizeHitText = (text: string): string =>
  text
    .replace(/\r?\n$/, '')
    .replace(/\r\n/g, '\n')
    .replace(/\r$/, '');
