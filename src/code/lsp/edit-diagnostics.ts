// The problems an edit introduced, for the edit tools' results (write_file, edit_file, multi_edit,
// apply_patch, move_file): the session's language server's diagnostics of the changed files before the
// change and after it, and only the new ones reported — an error the agent did not touch is not its
// news. One hook wraps a tool's whole change (`withEditDiagnostics`); the tools add only the input switch,
// the output field and one render line. It never starts a server (a first start takes seconds, and an
// edit must not pay for it): with no server running for the session yet, or one still starting, the
// result says so at once. A server that does not answer within `lsp.editBudgetMs`, after the change or
// before it, leaves what it gave and says `timeout`.
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { compareDiagnostics, lspDiagnostics, lspSession, serverFor, type LspContext } from './answers.js';
import type { Diagnostic } from './client.js';

/** Problems listed at most; the rest are counted in `more`. */
const MAX_PROBLEMS = 20;

/** The per-call switch, the same optional field on every edit tool. */
export const DiagnosticsSwitch = Type.Optional(
  Type.Boolean({
    description:
      'Report the problems (type errors…) this change introduced, from the language server if one runs ' +
      'for the session (default true; false skips the wait)',
  }),
);

/** One diagnostic at a place of a file (the diagnostics tool lists them too). */
export const DiagnosticSchema = Type.Object({
  path: Type.String(),
  line: Type.Integer(),
  column: Type.Integer(),
  severity: Type.Enum(['error', 'warning', 'info', 'hint']),
  message: Type.String(),
  code: Type.Optional(Type.String()),
});

const EditDiagnosticsObject = Type.Object(
  {
    state: Type.Enum(['checked', 'starting', 'not running', 'timeout'], {
      description:
        'checked: the server answered for every changed file; starting / not running: no answer waited ' +
        'for (call the diagnostics tool); timeout: not every file answered within the budget',
    }),
    problems: Type.Array(DiagnosticSchema, { description: 'New since before the change; errors first' }),
    more: Type.Integer({ description: 'New problems not listed' }),
  },
  {
    description:
      "Problems the change introduced (only when a language server serves a changed file's language)",
  },
);
export const EditDiagnostics = Type.Optional(EditDiagnosticsObject);
export type EditDiagnosticsResult = Static<typeof EditDiagnosticsObject>;
const isEditDiagnostics = Compile(EditDiagnosticsObject);

/** What the hook needs of a call: the language servers, and the session's profile switch. */
export interface EditDiagnosticsContext extends LspContext {
  readonly session: { readonly id: string; readonly profile: string };
  readonly services: LspContext['services'] & {
    readonly config: {
      readonly lsp: { readonly editBudgetMs: number };
      readonly profiles: Readonly<Record<string, { readonly editDiagnostics?: boolean | undefined }>>;
    };
  };
}

/** A changed file, and the path its content had before the change (a move or rename). */
export interface ChangedFile {
  path: string;
  from?: string;
}

/**
 * The keys of each changed file's diagnostics before the change, and the files that had a running
 * server and a text but no answer in time: their old problems are unknown, so what the change
 * introduced cannot be told from what was there.
 */
interface Known {
  readonly keys: Map<string, string[]>;
  readonly unanswered: Set<string>;
}

/** A diagnostic's identity across line shifts: the text of its line, its message and severity. */
function keyOf(d: Diagnostic, lines: readonly string[]): string {
  return `${d.severity}\0${d.message}\0${(lines[d.line - 1] ?? '').trim()}`;
}

/** The keys of the diagnostics each running server has for `files` now (their pre-change text). */
async function before(ctx: EditDiagnosticsContext, files: readonly string[], budgetMs: number) {
  const known: Known = { keys: new Map(), unanswered: new Set() };
  const byServer = groupByServer(ctx, files);
  for (const [server, group] of byServer) {
    if (ctx.services.lsp!.manager.state(ctx.session.id, server) !== 'running') continue;
    const session = await lspSession(ctx, group, budgetMs);
    if (!session) {
      for (const file of group) known.unanswered.add(file);
      continue;
    }
    const reported = await lspDiagnostics(session, group);
    for (const [file, diagnostics] of reported) {
      const lines = session.texts.get(file)?.split('\n') ?? [];
      known.keys.set(
        file,
        diagnostics.map((d) => keyOf(d, lines)),
      );
    }
    // A file that did not exist yet has no version and nothing to know; one that did and got no answer
    // is unknown.
    for (const file of group)
      if (session.versions.has(file) && !reported.has(file)) known.unanswered.add(file);
  }
  return known;
}

function groupByServer(ctx: EditDiagnosticsContext, files: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of files) {
    const server = serverFor(ctx, file);
    if (server) out.set(server, [...(out.get(server) ?? []), file]);
  }
  return out;
}

/** Whether this call reports diagnostics: servers on, the profile and the call not switching it off. */
function wanted(ctx: EditDiagnosticsContext, enabled: boolean | undefined): boolean {
  return (
    enabled !== false &&
    ctx.services.lsp !== undefined &&
    ctx.services.config.profiles[ctx.session.profile]?.editDiagnostics !== false
  );
}

/**
 * Runs a change and adds to its result the problems it introduced in the files `changed` names. `paths`
 * are the files as the input names them (workspace-relative), read before the change; a dry run, a
 * call or profile that switches diagnostics off, and files no server serves get the result unchanged.
 */
export async function withEditDiagnostics<T extends object>(
  ctx: EditDiagnosticsContext,
  options: { enabled: boolean | undefined; dryRun: boolean; paths: readonly string[] },
  run: () => Promise<T>,
  changed: (result: T) => ChangedFile[],
): Promise<T & { diagnostics?: EditDiagnosticsResult }> {
  if (options.dryRun || !wanted(ctx, options.enabled)) return run();
  const budgetMs = ctx.services.config.lsp.editBudgetMs;
  const deadline = Date.now() + budgetMs;
  const paths = options.paths.map((p) => p.replace(/^(\.\/)+/, ''));
  // Half the budget at most for the state before: the change itself must not wait long.
  const known: Known = paths.some((p) => serverFor(ctx, p))
    ? await before(ctx, paths, budgetMs / 2)
    : { keys: new Map(), unanswered: new Set() };
  const result = await run();
  const files = changed(result).filter((f) => serverFor(ctx, f.path));
  if (!files.length) return result;
  const diagnostics = await after(ctx, files, known, deadline);
  return { ...result, diagnostics };
}

async function after(
  ctx: EditDiagnosticsContext,
  files: readonly ChangedFile[],
  known: Known,
  deadline: number,
): Promise<EditDiagnosticsResult> {
  const problems: Array<Static<typeof DiagnosticSchema>> = [];
  let state: EditDiagnosticsResult['state'] = 'checked';
  const byServer = groupByServer(
    ctx,
    files.map((f) => f.path),
  );
  const from = new Map(files.map((f) => [f.path, f.from ?? f.path]));
  for (const [server, group] of byServer) {
    const serverState = ctx.services.lsp!.manager.state(ctx.session.id, server);
    if (serverState !== 'running') {
      if (state === 'checked') state = serverState === 'starting' ? 'starting' : 'not running';
      continue;
    }
    const session = await lspSession(ctx, group, Math.max(1, deadline - Date.now()));
    const reported = session ? await lspDiagnostics(session, group) : new Map<string, Diagnostic[]>();
    // Not every file answered now, or before the change (its old problems would count as new).
    if (reported.size < group.length || group.some((file) => known.unanswered.has(from.get(file)!)))
      state = 'timeout';
    for (const [file, diagnostics] of reported) {
      const lines = session!.texts.get(file)?.split('\n') ?? [];
      // A multiset: two equal problems before and three after is one new one.
      const left = new Map<string, number>();
      for (const key of known.keys.get(from.get(file)!) ?? []) left.set(key, (left.get(key) ?? 0) + 1);
      for (const d of diagnostics) {
        const key = keyOf(d, lines);
        const count = left.get(key) ?? 0;
        if (count > 0) left.set(key, count - 1);
        else problems.push({ path: file, ...d });
      }
    }
  }
  problems.sort(compareDiagnostics);
  return {
    state,
    problems: problems.slice(0, MAX_PROBLEMS),
    more: Math.max(0, problems.length - MAX_PROBLEMS),
  };
}

/** The lines a model reads after an edit's own text ('' when there is nothing to say). */
export function renderEditDiagnostics(d: EditDiagnosticsResult | undefined): string {
  if (!d) return '';
  const lines: string[] = [];
  if (d.problems.length) {
    lines.push('New problems:');
    for (const p of d.problems)
      lines.push(
        `  ${p.path}:${p.line}:${p.column} ${p.severity} ${p.message.split('\n')[0]}${p.code ? ` [${p.code}]` : ''}`,
      );
    if (d.more) lines.push(`  (${d.more} more; run the diagnostics tool)`);
  } else if (d.state === 'checked') lines.push('No new problems.');
  if (d.state === 'starting')
    lines.push('Diagnostics unavailable: the language server is still starting (call diagnostics later).');
  else if (d.state === 'not running')
    lines.push('Diagnostics unavailable: no language server runs yet (the diagnostics tool starts one).');
  else if (d.state === 'timeout')
    lines.push('Diagnostics incomplete: the language server did not answer in time.');
  return `\n${lines.join('\n')}`;
}

/** The diagnostics lines of any tool result (for answers that word an edit their own way). */
export function editDiagnosticsText(data: unknown): string {
  const diagnostics =
    data && typeof data === 'object' ? (data as { diagnostics?: unknown }).diagnostics : undefined;
  return isEditDiagnostics.Check(diagnostics) ? renderEditDiagnostics(diagnostics) : '';
}
