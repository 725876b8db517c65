// What a grep engine gets and gives back; ripgrep and the JavaScript engine return the same hits.

export interface GrepQuery {
  pattern: string;
  fixedStrings: boolean;
  caseInsensitive: boolean;
  multiline: boolean;
  context: number;
  /** rg-style globs: "*.ts" keeps matching files, "!dist" drops matching files and directories. */
  globs: string[];
  /** The workspace root in the runtime's view. */
  workspaceRoot: string;
  /** The file or directory to search, in the runtime's view. */
  searchPath: string;
  /** Stop once this many hits (matches and context lines) are collected. */
  maxHits: number;
  signal: AbortSignal;
}

export type { GrepHit } from '../../ops/walk.js';
import type { GrepHit } from '../../ops/walk.js';

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
