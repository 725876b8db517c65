// Which engine a grep call uses: ripgrep when `rg` runs here (checked once per app), else JavaScript.
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { BINARY_SAMPLE_BYTES, javascriptEngine } from './javascript.js';
import { ripgrepEngine } from './ripgrep.js';
import { gitignoreAt } from '../gitignore.js';
import { byName } from '../../../search/order.js';
import { countHits, type EngineResult, type GrepQuery } from './types.js';

import type { EngineChoice, EngineName } from '../../ops/walk.js';

export function ripgrepAvailable(): Promise<boolean> {
  return new Promise((resolve) => execFile('rg', ['--version'], { timeout: 5000 }, (err) => resolve(!err)));
}

async function isBinaryFile(file: string): Promise<boolean> {
  const stat = await fs.stat(file);
  if (!stat.isFile()) return false;
  // O_NONBLOCK: a FIFO swapped in under the name does not block the open.
  const handle = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) return true;
    const sample = Buffer.alloc(Math.min(stat.size, BINARY_SAMPLE_BYTES));
    await handle.read(sample, 0, sample.length, 0);
    return sample.includes(0);
  } finally {
    await handle.close();
  }
}

export async function runGrep(
  query: GrepQuery,
  choice: EngineChoice,
  hasRipgrep: boolean,
): Promise<EngineResult & { engine: EngineName }> {
  const engine: EngineName =
    choice === 'javascript' || (choice === 'auto' && !hasRipgrep) ? 'javascript' : 'ripgrep';
  // Counts come from ripgrep's own per-file count. The JavaScript engine, and multiline matches (one
  // hit per match, not per line), count their hits instead.
  const countFromHits = query.countOnly === true && (engine === 'javascript' || query.multiline);
  // A page of content: two passes (see pagedSearch), where ripgrep's per-line counts equal its hits.
  if (query.pageMatches !== undefined && !query.countOnly && engine === 'ripgrep' && !query.multiline) {
    if (!(await fs.stat(query.searchPath)).isDirectory()) return { ...(await search(query, engine)), engine };
    return { ...(await pagedSearch(query, query.pageMatches)), engine };
  }
  const result = await search(countFromHits ? { ...query, countOnly: false } : query, engine);
  return countFromHits
    ? { hits: [], counts: countHits(result.hits), capped: result.capped, engine }
    : { ...result, engine };
}

/** Files per rg invocation of the hits pass: far below any command-line length limit. */
const FILES_PER_RUN = 500;

/**
 * A page of content hits with ripgrep: count matching lines per file over the whole search (rg --count,
 * multi-threaded, nothing per match crosses the pipe), then ask for hits only in the first files in
 * path order that hold the page. The total stays exact; the cost of a page no longer grows with the
 * number of matches elsewhere. A file that changes between the two passes may show fewer or more hits
 * than it was counted with; the next page still starts where this one ended.
 */
async function pagedSearch(query: GrepQuery, wanted: number): Promise<EngineResult> {
  const counted = await search({ ...query, countOnly: true }, 'ripgrep');
  const counts = [...(counted.counts ?? [])].sort((a, b) => byName(a.path, b.path));
  const files: string[] = [];
  for (let i = 0, seen = 0; i < counts.length && seen < wanted; i++) {
    files.push(counts[i].path);
    seen += counts[i].count;
  }
  const hits = [];
  let capped = false;
  for (let i = 0; i < files.length && !capped; i += FILES_PER_RUN) {
    const part = await search({ ...query, files: files.slice(i, i + FILES_PER_RUN) }, 'ripgrep');
    hits.push(...part.hits);
    capped = part.capped;
  }
  return { hits, counts, capped };
}

async function search(query: GrepQuery, engine: EngineName): Promise<EngineResult> {
  if (engine === 'javascript') return javascriptEngine(query);
  // Files named outright are searched whatever the .gitignore files say, by rg as by the walk.
  if (query.files) return ripgrepEngine(query, 'rg', '');
  // rg searches a binary file it is pointed at directly; skip it as a directory walk would.
  if (await isBinaryFile(query.searchPath)) return { hits: [], capped: false };
  return ripgrepEngine(query, 'rg', await rulesAbove(query));
}

/** The .gitignore rules of the directories above a searched directory, rebased to the root, for rg. */
async function rulesAbove(query: GrepQuery): Promise<string> {
  if (!(await fs.stat(query.searchPath)).isDirectory()) return '';
  const from = path.relative(query.workspaceRoot, query.searchPath).split(path.sep).join('/');
  return gitignoreAt(query.workspaceRoot).rulesAbove(from);
}
