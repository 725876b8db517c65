// diagnostics: the language servers' errors and warnings for a file, a directory or the workspace —
// what the compiler or type checker would say, without running the build.
import { Type, type Static } from 'typebox';
import { toolgateError } from '../../lib/errors.js';
import { defineTool } from '../../contract/tool.js';
import {
  compareDiagnostics,
  lspDiagnostics,
  lspSession,
  missingPackagesFor,
  serverFor,
} from '../../code/lsp/answers.js';
import { DiagnosticSchema as Diagnostic } from '../../code/lsp/edit-diagnostics.js';
import { codeSnapshot, resolveScope } from '../../code/tool-shared.js';

/** Files one call sends to one server at most (a workspace-wide check of a huge repository is cut). */
const MAX_FILES_PER_SERVER = 500;

const Input = Type.Object(
  {
    path: Type.String({
      minLength: 1,
      default: '.',
      description: 'A source file, or a directory whose source files to check ("." = the workspace)',
    }),
    wait_ms: Type.Integer({
      minimum: 100,
      maximum: 60_000,
      default: 10_000,
      description: 'How long to wait for the servers (a server starting for the first time takes seconds)',
    }),
    limit: Type.Integer({ minimum: 1, maximum: 2000, default: 200, description: 'Most diagnostics listed' }),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  source: Type.Literal('lsp'),
  path: Type.String(),
  diagnostics: Type.Array(Diagnostic, { description: 'Errors first, then warnings, info, hints' }),
  errors: Type.Integer(),
  warnings: Type.Integer(),
  total: Type.Integer(),
  truncated: Type.Boolean(),
  checked: Type.Integer({ description: 'Files the servers reported on in time' }),
  unanswered: Type.Integer({ description: 'Files no server reported on within wait_ms' }),
  servers: Type.Array(Type.Object({ server: Type.String(), state: Type.Enum(['answered', 'not ready']) }), {
    description: 'not ready: the server was still starting (or did not answer) within wait_ms',
  }),
});

export default defineTool({
  name: 'diagnostics',
  category: 'code',
  description:
    'Errors and warnings from the language servers (TypeScript/JavaScript, Python; Go, Rust, Java when ' +
    'their servers are installed) for a file or every source file under a directory: type errors, ' +
    'unknown names, wrong arguments, without running the build. The first call starts the server.',
  capabilities: { readsFiles: true, idempotent: true },
  input: Input,
  output: Output,
  examples: [{ path: 'src/app.ts', wait_ms: 10_000, limit: 100 }],
  async execute(input, ctx) {
    const scope = await resolveScope(ctx, input.path);
    const snapshot = await codeSnapshot(ctx);
    const candidates = snapshot.byPath.has(scope.relative)
      ? [scope.relative]
      : [...snapshot.byPath.keys()].filter(scope.include);
    const byServer = new Map<string, string[]>();
    for (const file of candidates) {
      const server = serverFor(ctx, file);
      if (server) byServer.set(server, [...(byServer.get(server) ?? []), file]);
    }
    if (!byServer.size) {
      // A server this install left out (a production install has no language servers) says which
      // package it lacks and the command that adds it.
      const missing = ctx.services.lsp ? missingPackagesFor(candidates) : undefined;
      throw toolgateError(
        'UNSUPPORTED_LANGUAGE',
        !ctx.services.lsp
          ? 'Language servers are turned off on this service'
          : missing
            ? `No language server serves the source files in ${scope.relative}: ${missing}`
            : `No language server serves the source files in ${scope.relative}`,
        { suggestion: 'Run the build or the type checker with run_command instead.' },
      );
    }
    const deadline = Date.now() + input.wait_ms;
    const found: Static<typeof Diagnostic>[] = [];
    const servers: Array<{ server: string; state: 'answered' | 'not ready' }> = [];
    let checked = 0;
    let unanswered = 0;
    for (const [server, all] of byServer) {
      const files = all.slice(0, MAX_FILES_PER_SERVER);
      const session = await lspSession(ctx, files, Math.max(1, deadline - Date.now()));
      servers.push({ server, state: session ? 'answered' : 'not ready' });
      if (!session) {
        unanswered += files.length;
        continue;
      }
      const reported = await lspDiagnostics(session, files);
      checked += reported.size;
      unanswered += files.length - reported.size;
      for (const [path, diagnostics] of reported)
        for (const diagnostic of diagnostics) found.push({ path, ...diagnostic });
    }
    found.sort(compareDiagnostics);
    return {
      source: 'lsp' as const,
      path: scope.relative,
      diagnostics: found.slice(0, input.limit),
      errors: found.filter((d) => d.severity === 'error').length,
      warnings: found.filter((d) => d.severity === 'warning').length,
      total: found.length,
      truncated: found.length > input.limit,
      checked,
      unanswered,
      servers,
    };
  },
  render(data) {
    const lines = data.diagnostics.map(
      (d) => `${d.path}:${d.line}:${d.column}: ${d.severity}: ${d.message}${d.code ? ` [${d.code}]` : ''}`,
    );
    if (data.truncated) lines.push(`(${data.total - data.diagnostics.length} more; raise limit)`);
    lines.push(`${data.errors} errors, ${data.warnings} warnings in ${data.checked} files checked`);
    for (const s of data.servers)
      if (s.state === 'not ready') lines.push(`${s.server} server not ready yet; call again shortly`);
    return lines.join('\n');
  },
});
