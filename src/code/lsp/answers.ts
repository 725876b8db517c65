// What the code tools ask the session's language server: references, definitions, hover text and
// diagnostics, each within one call's budget. Every function answers `undefined` when no server serves
// the file's language, the server is still starting, or it does not answer in time — the tool then
// answers from the syntax index. The files the server has open are brought up to date with the
// workspace first (one runtime round trip), so answers follow edits made by any tool or command.
import { readFiles } from '../../runtime/read-files.js';
import type { Workspace } from '../../runtime/workspace.js';
import { languageOf } from '../languages.js';
import { timeout, type Diagnostic, type LspClient, type Location } from './client.js';
import type { LspManager } from './manager.js';
import { missingServerPackages } from './packages.js';
import { servedBy } from './servers.js';

/** The service's language servers and how long a call waits for them. */
export interface LspService {
  readonly manager: LspManager;
  readonly budgetMs: number;
}

/** What the functions here need of a call (a tool's ToolContext is one). */
export interface LspContext {
  readonly session: { readonly id: string };
  readonly workspace: Workspace;
  readonly services: { readonly lsp?: LspService | undefined };
}

/** Larger files are not sent to a server. */
const MAX_SYNC_BYTES = 2 * 1024 * 1024;

/** A ready server for a file, with the call's deadline and the texts it was just given. */
export interface LspSession {
  readonly client: LspClient;
  readonly texts: ReadonlyMap<string, string>;
  readonly versions: ReadonlyMap<string, number>;
  /** Milliseconds left of the call's budget (at least 1). */
  left(): number;
}

/** The server key that serves a file, if the file's language has one. */
export function serverFor(ctx: LspContext, file: string): string | undefined {
  const language = languageOf(file);
  if (!language || !ctx.services.lsp) return undefined;
  const { server } = servedBy(language);
  return ctx.services.lsp.manager.serves(server, ctx.workspace.runtime) ? server : undefined;
}

/** Why no server serves these files when that is for want of its npm packages (one line); else undefined. */
export function missingPackagesFor(files: readonly string[]): string | undefined {
  const servers = new Set(files.map((file) => languageOf(file)).map((lang) => lang && servedBy(lang).server));
  for (const server of servers) {
    const missing = server && missingServerPackages(server);
    if (missing) return missing;
  }
  return undefined;
}

/**
 * The session's server for `files` (all of one server's languages), started if needed and waited for
 * within `budgetMs` (the service's budget by default), with those files and the ones it already has
 * open synced to the workspace's current text.
 */
export async function lspSession(
  ctx: LspContext,
  files: readonly string[],
  budgetMs = ctx.services.lsp?.budgetMs ?? 0,
): Promise<LspSession | undefined> {
  const service = ctx.services.lsp;
  const server = files[0] === undefined ? undefined : serverFor(ctx, files[0]);
  if (!service || !server) return undefined;
  const deadline = Date.now() + budgetMs;
  const left = () => Math.max(1, deadline - Date.now());
  const starting = service.manager.client(ctx.session.id, ctx.workspace.runtime, server);
  const client =
    starting &&
    (await timeout(
      starting.catch(() => undefined),
      left(),
    ));
  if (!client?.alive) return undefined;
  const paths = [...new Set([...client.openFiles(), ...files])];
  const contents = await readFiles(ctx.workspace, paths, MAX_SYNC_BYTES);
  const texts = new Map<string, string>();
  const versions = new Map<string, number>();
  for (const [i, file] of paths.entries()) {
    const language = languageOf(file);
    const content = contents[i];
    if (!language || content === undefined) continue;
    const text = content.toString('utf8');
    texts.set(file, text);
    versions.set(file, await client.sync(file, servedBy(language).languageId, text));
  }
  return { client, texts, versions, left };
}

/** The 1-based column of `name` as a whole word on a line, at or after `from`; undefined if absent. */
export function columnOf(line: string, name: string, from = 1): number | undefined {
  const pattern = new RegExp(`(?<![\\w$])${name.replace(/[$]/g, '\\$')}(?![\\w$])`, 'g');
  pattern.lastIndex = from - 1;
  const match = pattern.exec(line);
  return match ? match.index + 1 : undefined;
}

/** Uses of the symbol named `name` defined at `line` of `file`, or undefined (no server, too late). */
export async function lspReferences(
  ctx: LspContext,
  definitions: readonly { path: string; line: number }[],
  name: string,
): Promise<Location[] | undefined> {
  const files = [...new Set(definitions.map((d) => d.path))];
  // One server answers for all of them, or the syntax index does.
  if (new Set(files.map((file) => serverFor(ctx, file))).size !== 1) return undefined;
  const session = await lspSession(ctx, files);
  if (!session) return undefined;
  const found = new Map<string, Location>();
  for (const definition of definitions) {
    const text = session.texts.get(definition.path)?.split('\n')[definition.line - 1];
    const column = text === undefined ? undefined : columnOf(text, name);
    if (column === undefined) return undefined;
    const uses = await session.client.references(
      definition.path,
      { line: definition.line, column },
      session.left(),
    );
    if (uses === undefined) return undefined;
    for (const use of uses) found.set(`${use.path}:${use.line}:${use.column}`, use);
  }
  return [...found.values()];
}

/**
 * Where the server says `name` (its last segment) as used in `file` is defined: at the first use on or
 * after `line`. Undefined when no server answers or the file does not use the name.
 */
export async function lspDefinition(
  ctx: LspContext,
  file: string,
  name: string,
  line = 1,
): Promise<{ at: Location; definitions: Location[] } | undefined> {
  const session = await lspSession(ctx, [file]);
  const lines = session?.texts.get(file)?.split('\n');
  if (!session || !lines) return undefined;
  const last = name.split('.').pop()!;
  for (let n = line; n <= lines.length; n++) {
    const column = columnOf(lines[n - 1], last);
    if (column === undefined) continue;
    const at = { path: file, line: n, column };
    const definitions = await session.client.definition(file, at, session.left());
    return definitions && { at, definitions };
  }
  return undefined;
}

/** The server's hover text (type and docs) of the name at `line` of `file`. */
export async function lspHover(
  ctx: LspContext,
  file: string,
  name: string,
  line: number,
): Promise<string | undefined> {
  const session = await lspSession(ctx, [file]);
  const text = session?.texts.get(file)?.split('\n')[line - 1];
  const column = text === undefined ? undefined : columnOf(text, name);
  if (!session || column === undefined) return undefined;
  return session.client.hover(file, { line, column }, session.left());
}

/** Each file's current diagnostics; a file the server published none for in time is left out. */
export async function lspDiagnostics(
  session: LspSession,
  files: readonly string[],
): Promise<Map<string, Diagnostic[]>> {
  const out = new Map<string, Diagnostic[]>();
  for (const file of files) {
    const version = session.versions.get(file);
    if (version === undefined) continue;
    const diagnostics = await session.client.diagnostics(file, version, session.left());
    if (diagnostics) out.set(file, diagnostics);
  }
  return out;
}

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2, hint: 3 } as const;

/** The order diagnostics are listed in: errors first, then warnings, info, hints; by place within each. */
export function compareDiagnostics(
  a: Diagnostic & { path: string },
  b: Diagnostic & { path: string },
): number {
  return (
    SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
    a.path.localeCompare(b.path) ||
    a.line - b.line ||
    a.column - b.column
  );
}
