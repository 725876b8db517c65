// Tool folders: TOOLGATE_TOOLS_DIR/<folder>/definition.json beside an entry program (`run` with a
// shebang, or the definition's `command`). Each becomes a tool like a built-in; its calls run the entry
// inside the session runtime's sandbox, where the folder is visible read-only at its own path.
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { Type, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { toolgateError } from '../../lib/errors.js';
import { defineTool, type AnyTool } from '../../contract/tool.js';
import { runEntry } from '../run-entry.js';
import { checkDefinition, DefinitionError, type Definition, type DefinitionOptions } from './definition.js';

export const DEFINITION_FILE = 'definition.json';
const DEFAULT_TIMEOUT_MS = 30_000;

const shellQuote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * The entry as a shell command line. Words that name a file of the folder (`main.py`) become its
 * absolute path; the rest (`python3`, flags) stay as they are. No command: the folder's `run`.
 */
async function entryCommand(folder: string, definition: Definition, file: string): Promise<string> {
  const words =
    definition.command === undefined
      ? ['run']
      : Array.isArray(definition.command)
        ? definition.command
        : definition.command.trim().split(/\s+/);
  const resolved = await Promise.all(
    words.map(async (word) => {
      if (word.startsWith('-') || path.isAbsolute(word) || word.includes('..')) return word;
      const candidate = path.join(folder, word);
      const isFile = await fs.stat(candidate).then(
        (stat) => stat.isFile(),
        () => false,
      );
      return isFile ? candidate : word;
    }),
  );
  if (definition.command === undefined) {
    const run = path.join(folder, 'run');
    const executable = await fs.access(run, constants.X_OK).then(
      () => true,
      () => false,
    );
    if (resolved[0] !== run || !executable) {
      throw new DefinitionError(file, 'command', 'is missing, and the folder has no executable "run" file');
    }
  }
  return `exec ${resolved.map(shellQuote).join(' ')}`;
}

function folderTool(folder: string, definition: Definition, command: string): AnyTool {
  const outputCheck = definition.output_schema ? Compile(definition.output_schema as never) : undefined;
  const timeoutMs = definition.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  return defineTool({
    name: definition.name,
    category: definition.category,
    description: definition.description,
    version: definition.version,
    tags: definition.tags,
    capabilities: definition.capabilities,
    input: definition.parameters as unknown as TSchema,
    output: (definition.output_schema ?? Type.Unknown()) as unknown as TSchema,
    examples: definition.examples,
    retryable: definition.retryable,
    autoRun: definition.auto_run,
    timeoutMs: () => timeoutMs,
    async execute(input, ctx) {
      const data = await runEntry(ctx, {
        command,
        env: { TOOLGATE_TOOL_DIR: folder, TOOLGATE_TOOL_NAME: definition.name },
        input,
        timeoutMs,
        tool: definition.name,
      });
      if (outputCheck && !outputCheck.Check(data)) {
        throw toolgateError(
          'TOOL_FAILED',
          `${definition.name} returned a result that does not match its output_schema`,
        );
      }
      return data;
    },
  });
}

export interface LoadedFolder {
  /** The folder's absolute path (inside the tools dir, which is bound read-only into each sandbox). */
  folder: string;
  tool: AnyTool;
  /** What the folder held when it was read (see folderFingerprint): a later change differs. */
  fingerprint: string;
}

/** The tool folders of `dir` (its directories), in name order. */
export async function toolFolderNames(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch (err) {
    throw new DefinitionError(dir, '(directory)', `cannot be read (${(err as Error).message})`);
  }
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort((a, b) => a.localeCompare(b));
}

/** The names, sizes and modification times of a folder's files: what a change of the tool changes. */
export async function folderFingerprint(folder: string): Promise<string> {
  const names = await fs.readdir(folder).catch(() => []);
  const stamps = await Promise.all(
    names.sort().map(async (name) => {
      const stat = await fs.stat(path.join(folder, name)).catch(() => undefined);
      return stat ? `${name}:${stat.size}:${stat.mtimeMs}:${stat.mode}` : name;
    }),
  );
  return stamps.join('|');
}

/** One tool folder; a bad one throws a DefinitionError naming file and field. */
export async function loadToolFolder(folder: string, options: DefinitionOptions): Promise<LoadedFolder> {
  const fingerprint = await folderFingerprint(folder);
  const file = path.join(folder, DEFINITION_FILE);
  const text = await fs.readFile(file, 'utf8').catch(() => {
    throw new DefinitionError(file, '(file)', 'is missing: every tool folder needs one');
  });
  const definition = checkDefinition(file, text, options);
  return {
    folder,
    tool: folderTool(folder, definition, await entryCommand(folder, definition, file)),
    fingerprint,
  };
}

/** Every tool folder of `dir`, in name order; a bad one throws a DefinitionError naming file and field. */
export async function loadToolFolders(dir: string, options: DefinitionOptions): Promise<LoadedFolder[]> {
  const loaded: LoadedFolder[] = [];
  for (const name of await toolFolderNames(dir)) {
    loaded.push(await loadToolFolder(path.join(dir, name), options));
  }
  return loaded;
}
