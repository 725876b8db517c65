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
  /** Count matching lines per file instead of returning hits (see GrepArgs.countOnly). */
  countOnly?: boolean;
  /** Hits only for the first files (in path order) holding this many matches (see GrepArgs.pageMatches). */
  pageMatches?: number;
  /** Search exactly these files (workspace-relative), instead of searchPath. */
  files?: string[];
  signal: AbortSignal;
}

export type { GrepCount, GrepHit } from '../../ops/walk.js';
import type { GrepCount, GrepHit } from '../../ops/walk.js';

export interface EngineResult {
  hits: GrepHit[];
  /** Matching lines per file, when the query asked for counts or for a page of hits. */
  counts?: GrepCount[];
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

/** Matching lines per file from hits (context lines are not matches): what a count-only query returns. */
export function countHits(hits: readonly GrepHit[]): GrepCount[] {
  const counts = new Map<string, number>();
  for (const hit of hits) if (!hit.context) counts.set(hit.path, (counts.get(hit.path) ?? 0) + 1);
  return [...counts].map(([path, count]) => ({ path, count }));
}
