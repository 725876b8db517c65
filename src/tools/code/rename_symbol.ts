// rename_symbol: renames a symbol everywhere the language server says it is used, applied through the
// edit engine as one change (history, undo_edit), or only shown as a diff with dry_run.
import { Type } from 'typebox';
import { toolgateError } from '../../lib/errors.js';
import { defineTool } from '../../contract/tool.js';
import { columnOf, lspSession, serverFor } from '../../code/lsp/answers.js';
import { commitWrites, type PlannedWrite } from '../../edit/file-commit.js';
import { lockKey } from '../../edit/file-guard.js';
import { loadTextFile } from '../../edit/load-text-file.js';
import { applyPositionalEdits } from '../../edit/positional-edits.js';
import { unifiedDiff } from '../../edit/text-edit.js';
import { encodeText } from '../../edit/text-file.js';

const Input = Type.Object(
  {
    path: Type.String({ minLength: 1, description: 'A file that defines or uses the symbol' }),
    name: Type.String({ minLength: 1, maxLength: 300, description: 'The symbol’s current name' }),
    line: Type.Optional(
      Type.Integer({ minimum: 1, description: 'The line of the use to rename from (default: the first)' }),
    ),
    new_name: Type.String({ minLength: 1, maxLength: 300, pattern: '^\\S+$', description: 'The new name' }),
    dry_run: Type.Boolean({ default: false, description: 'Only return the diff; write nothing' }),
    wait_ms: Type.Integer({
      minimum: 100,
      maximum: 60_000,
      default: 10_000,
      description: 'How long to wait for the language server (its first start takes seconds)',
    }),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  source: Type.Literal('lsp'),
  name: Type.String(),
  new_name: Type.String(),
  files: Type.Array(Type.Object({ path: Type.String(), edits: Type.Integer() })),
  diff: Type.String({ description: 'Unified diff of every changed file' }),
  diffTruncated: Type.Boolean(),
  dryRun: Type.Boolean({ description: 'True when nothing was written' }),
});

export default defineTool({
  name: 'rename_symbol',
  category: 'code',
  description:
    'Rename a symbol (function, class, variable, method, parameter) everywhere it is used, as the ' +
    'language server of its language understands it (TypeScript/JavaScript, Python; Go, Rust, Java ' +
    'when installed): imports and re-exports included, same-named other symbols left alone. One change: ' +
    'undo_edit reverts it. dry_run shows the diff only.',
  capabilities: { readsFiles: true, writesFiles: true, destructive: true, idempotent: false },
  input: Input,
  output: Output,
  examples: [
    { path: 'src/users.ts', name: 'createUser', new_name: 'addUser', dry_run: true, wait_ms: 10_000 },
  ],
  async execute(input, ctx) {
    const { relative } = await ctx.workspace.resolve(input.path);
    if (!serverFor(ctx, relative)) {
      throw toolgateError('UNSUPPORTED_LANGUAGE', `No language server serves ${relative}`, {
        suggestion: 'Rename with find_references and multi_edit instead.',
      });
    }
    const session = await lspSession(ctx, [relative], input.wait_ms);
    const lines = session?.texts.get(relative)?.split('\n');
    if (!session || !lines) {
      throw toolgateError('TOOL_FAILED', `The language server for ${relative} is not ready yet`, {
        suggestion: 'Call again in a few seconds, or raise wait_ms.',
      });
    }
    const from = input.line ?? 1;
    let at: { line: number; column: number } | undefined;
    for (let line = from; line <= lines.length && !at; line++) {
      const column = columnOf(lines[line - 1], input.name);
      if (column !== undefined) at = { line, column };
    }
    if (!at) {
      throw toolgateError('NOT_FOUND', `"${input.name}" does not occur in ${relative} from line ${from}`);
    }
    const changes = await session.client.rename(relative, at, input.new_name, session.left());
    if (changes === undefined) {
      throw toolgateError('TOOL_FAILED', `The language server did not answer within ${input.wait_ms} ms`, {
        suggestion: 'Call again, or raise wait_ms.',
      });
    }
    if (!changes?.size) throw toolgateError('NOT_FOUND', `The language server finds nothing to rename there`);
    const outside = [...changes.keys()].filter((file) => file.startsWith('..'));
    if (outside.length) {
      throw toolgateError('TOOL_FAILED', 'The rename would change files outside the workspace', {
        details: { files: outside },
      });
    }
    const files = [...changes.keys()].sort();
    return ctx.services.fileLocks.run(
      files.map((file) => lockKey(ctx, file)),
      async () => {
        const writes: PlannedWrite[] = [];
        const diffs: string[] = [];
        for (const file of files) {
          const loaded = await loadTextFile(ctx.workspace, file, ctx.limits.editMaxBytes);
          const text = applyPositionalEdits(loaded.text, changes.get(file)!, file);
          const bytes = encodeText(loaded, text);
          const previous = loaded.raw ? { bytes: loaded.raw, mode: loaded.mode } : undefined;
          writes.push({ relative: file, bytes, mode: loaded.mode, previous });
          diffs.push(unifiedDiff(file, loaded.text, text, ctx.limits.outputMaxBytes).diff);
        }
        if (!input.dry_run) await commitWrites(ctx, 'rename_symbol', writes);
        const all = diffs.join('\n');
        const max = ctx.limits.outputMaxBytes;
        return {
          source: 'lsp' as const,
          name: input.name,
          new_name: input.new_name,
          files: files.map((file) => ({ path: file, edits: changes.get(file)!.length })),
          diff: Buffer.byteLength(all) > max ? `${all.slice(0, max)}\n… [diff truncated]` : all,
          diffTruncated: Buffer.byteLength(all) > max,
          dryRun: input.dry_run,
        };
      },
    );
  },
  render(data) {
    const head = `${data.dryRun ? 'Would rename' : 'Renamed'} ${data.name} → ${data.new_name} in ${data.files.length} files`;
    return `${head}\n${data.diff}`;
  },
});
