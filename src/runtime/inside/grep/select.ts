// Which engine a grep call uses: ripgrep when `rg` runs here (checked once per app), else JavaScript.
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { BINARY_SAMPLE_BYTES, javascriptEngine } from './javascript.js';
import { ripgrepEngine } from './ripgrep.js';
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
  const result = await search(countFromHits ? { ...query, countOnly: false } : query, engine);
  return countFromHits
    ? { hits: [], counts: countHits(result.hits), capped: result.capped, engine }
    : { ...result, engine };
}

async function search(query: GrepQuery, engine: EngineName): Promise<EngineResult> {
  if (engine === 'javascript') return javascriptEngine(query);
  // rg searches a binary file it is pointed at directly; skip it as a directory walk would.
  if (await isBinaryFile(query.searchPath)) return { hits: [], capped: false };
  const hasRootGitignore = await fs
    .access(path.join(query.workspaceRoot, '.gitignore'))
    .then(() => true)
    .catch(() => false);
  return ripgrepEngine(query, 'rg', hasRootGitignore);
}
