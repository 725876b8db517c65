// The body shared by edit_file and multi_edit: under the file's lock, load it, check it is the version
// the session knows, apply the edits in memory (all or none), diff, and write it back in its encoding.
import { Type } from 'typebox';
import type { EditContext } from './edit-context.js';
import { toolgateError } from '../lib/errors.js';
import type { Edit } from './apply-edit.js';
import { editJob } from './edit-work.js';
import { STRATEGY_NAMES, type StrategyName } from './edit-strategies.js';
import { commitWrites } from './file-commit.js';
import { checkFresh, lockKey } from './file-guard.js';
import { encodeText, toLf } from './text-file.js';
import { loadTextFile } from './load-text-file.js';
import { sha256 } from '../lib/text.js';
import { unifiedDiff } from './unified-diff.js';

export const EditResult = Type.Object({
  path: Type.String(),
  replacements: Type.Integer({ description: 'Places changed, over all edits' }),
  strategy: Type.Enum([...STRATEGY_NAMES], {
    description: 'exact, or the fuzzy rule that matched old_string',
  }),
  strategies: Type.Array(Type.Enum([...STRATEGY_NAMES]), {
    description: 'The rule used by each edit, in order',
  }),
  diff: Type.String({ description: 'Unified diff of the change' }),
  diffTruncated: Type.Boolean(),
  dryRun: Type.Boolean({ description: 'True when nothing was written' }),
  created: Type.Boolean(),
  sha256: Type.String({ description: 'Hash of the file after the change (as it would be, for a dry run)' }),
});

export interface TextEditRequest {
  path: string;
  edits: Edit[];
  dry_run: boolean;
  expected_sha256?: string;
}

const looseness = (name: StrategyName): number => STRATEGY_NAMES.indexOf(name);

export { unifiedDiff };

export async function runTextEdits(ctx: EditContext, tool: string, request: TextEditRequest) {
  const target = await ctx.workspace.resolve(request.path);
  if (target.relative === '.') throw toolgateError('NOT_A_FILE', 'The workspace root is a directory');
  return ctx.services.fileLocks.run([lockKey(ctx, target.relative)], async () => {
    const file = await loadTextFile(ctx.workspace, target.relative, ctx.limits.editMaxBytes);
    if (!file.exists && request.edits[0].old_string !== '') {
      throw toolgateError('FILE_NOT_FOUND', `No such file: ${target.relative}`, {
        suggestion: 'Create it with write_file, or with edit_file and an empty old_string.',
      });
    }
    await checkFresh(ctx, target.relative, file.exists ? file.sha256 : undefined, request.expected_sha256);
    // A file with mixed line endings is edited byte for byte; otherwise edits match on LF text.
    const normalize = file.crlf || !file.text.includes('\r') ? toLf : (text: string) => text;
    // Matching (exact, then the fuzzy rules) and the diff run in a worker: see edit-jobs.ts.
    const { text, replacements, strategies, diff, diffTruncated } = await editJob(ctx, 'editText', {
      text: file.text,
      edits: request.edits.map((edit) => ({
        ...edit,
        old_string: normalize(edit.old_string),
        new_string: normalize(edit.new_string),
      })),
      relative: target.relative,
      diffMaxBytes: ctx.limits.outputMaxBytes,
    });
    const bytes = encodeText(file, text);
    if (!request.dry_run) {
      const previous = file.raw ? { bytes: file.raw, mode: file.mode } : undefined;
      await commitWrites(ctx, tool, [{ relative: target.relative, bytes, mode: file.mode, previous }]);
    }
    return {
      path: target.relative,
      replacements,
      strategy: strategies.reduce((a, b) => (looseness(b) > looseness(a) ? b : a)),
      strategies,
      diff,
      diffTruncated,
      dryRun: request.dry_run,
      created: !file.exists,
      sha256: sha256(bytes),
    };
  });
}

export function renderEdit(data: {
  path: string;
  replacements: number;
  strategy: string;
  diff: string;
  dryRun: boolean;
}) {
  const verb = data.dryRun ? 'Would edit' : 'Edited';
  const how = data.strategy === 'exact' ? '' : ` (fuzzy match: ${data.strategy})`;
  return `${verb} ${data.path}: ${data.replacements} replacement${data.replacements === 1 ? '' : 's'}${how}\n${data.diff}`;
}
