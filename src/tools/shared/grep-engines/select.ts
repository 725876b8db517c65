// Which engine a grep call uses: ripgrep when `rg` runs here (checked once per app), else JavaScript.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { javascriptEngine } from './javascript.js';
import { ripgrepEngine } from './ripgrep.js';
import type { EngineResult, GrepQuery } from './types.js';

export type EngineChoice = 'auto' | 'ripgrep' | 'javascript';
export type EngineName = 'ripgrep' | 'javascript';

export async function ripgrepAvailable(): Promise<boolean> {
  const result = await execa('rg', ['--version'], { reject: false, timeout: 5000 }).catch(() => undefined);
  return result?.exitCode === 0;
}

export async function runGrep(
  query: GrepQuery,
  choice: EngineChoice,
  hasRipgrep: boolean,
): Promise<EngineResult & { engine: EngineName }> {
  const engine: EngineName =
    choice === 'javascript' || (choice === 'auto' && !hasRipgrep) ? 'javascript' : 'ripgrep';
  if (engine === 'javascript') return { ...(await javascriptEngine(query)), engine };
  const hasRootGitignore = await fs
    .access(path.join(query.workspaceRoot, '.gitignore'))
    .then(() => true)
    .catch(() => false);
  return { ...(await ripgrepEngine(query, 'rg', hasRootGitignore)), engine };
}
