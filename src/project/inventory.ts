// Every file of a workspace (heavy and .gitignored folders left out) with its language by extension,
// for the project tools; reading helpers that go through the workspace's path confinement.
import path from 'node:path';
import type { Workspace } from '../runtime/workspace.js';
import type { SourceFile as WalkedFile } from '../runtime/ops/source.js';
import { readFiles } from '../runtime/read-files.js';
import { LANGUAGES, languageByExtension } from '../search/languages.js';

/** What project analysis needs of a tool call (a tool's ProjectContext is one): the workspace, the abort signal. */
export interface ProjectContext {
  readonly workspace: Workspace;
  readonly signal: AbortSignal;
}

/** Languages that are docs and data (as opposed to code), left out of size-by-language summaries. */
export const DATA_LANGUAGES = new Set(LANGUAGES.filter((l) => l.data).map((l) => l.name));

export const languageName = (file: string): string | undefined => {
  if (file.endsWith('.d.ts')) return undefined;
  if (path.posix.basename(file) === 'Dockerfile') return 'Dockerfile';
  return languageByExtension(file)?.name;
};

export interface Inventory {
  files: WalkedFile[];
  byPath: Map<string, WalkedFile>;
  truncated: boolean;
}

const MAX_FILES = 20_000;

export async function inventory(ctx: ProjectContext): Promise<Inventory> {
  const { files, truncated } = (
    await ctx.workspace.call('walkSource', { path: '.', filter: {}, maxFiles: MAX_FILES })
  ).result;
  return { files, byPath: new Map(files.map((f) => [f.path, f])), truncated };
}

const MAX_READ = 1024 * 1024;

/** A workspace file's text (resolved through the workspace; undefined when missing, large or unreadable). */
export async function readText(ctx: ProjectContext, relative: string): Promise<string | undefined> {
  const [bytes] = await readFiles(ctx.workspace, [relative], MAX_READ);
  return bytes?.toString('utf8');
}

/** Files whose base name is one of `names`, shallowest first (manifests of monorepo packages too). */
export function filesNamed(inv: Inventory, names: readonly string[], maxDepth = 3): string[] {
  const wanted = new Set(names);
  return inv.files
    .map((f) => f.path)
    .filter((p) => wanted.has(path.posix.basename(p)) && p.split('/').length <= maxDepth + 1)
    .sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
}

export const dirOf = (file: string): string => {
  const dir = path.posix.dirname(file);
  return dir === '.' ? '.' : dir;
};

export interface LanguageSize {
  language: string;
  files: number;
  bytes: number;
}

/** Files and bytes per language, largest first; docs and data formats only when `includeData`. */
export function languageSizes(inv: Inventory, includeData = false): LanguageSize[] {
  const sizes = new Map<string, LanguageSize>();
  for (const file of inv.files) {
    const language = languageName(file.path);
    if (!language || (!includeData && DATA_LANGUAGES.has(language))) continue;
    const entry = sizes.get(language) ?? { language, files: 0, bytes: 0 };
    entry.files++;
    entry.bytes += file.size;
    sizes.set(language, entry);
  }
  return [...sizes.values()].sort((a, b) => b.bytes - a.bytes || a.language.localeCompare(b.language));
}
