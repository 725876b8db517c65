// Turns a unified diff into the new content of each file it touches, without writing anything: parse
// (diff's parsePatch), resolve paths, check each file is the version the session knows, apply hunks.
// A hunk that does not fit is named, with the closest text in the file.
import { applyPatch, parsePatch, type StructuredPatch, type StructuredPatchHunk } from 'diff';
import type { ToolContext } from '../../core/context.js';
import { toolgateError } from '../../core/errors.js';
import type { PlannedWrite } from './file-commit.js';
import { checkFresh } from './file-guard.js';
import { closestRegion } from './similarity.js';
import { encodeText, loadTextFile, toLf } from './text-file.js';

export type PatchStatus = 'added' | 'modified' | 'deleted' | 'renamed';

/** A path as the runtime resolved it. */
interface ResolvedPath {
  relative: string;
}

export interface FilePlan {
  status: PatchStatus;
  target: ResolvedPath;
  /** For renames: where the file was. */
  from?: ResolvedPath;
  additions: number;
  deletions: number;
  writes: PlannedWrite[];
}

const NULL_PATH = '/dev/null';

/** git-style "a/" and "b/" prefixes are stripped. */
function cleanName(name: string | undefined, prefix: 'a/' | 'b/'): string | null {
  if (!name || name === NULL_PATH) return null;
  return name.startsWith(prefix) ? name.slice(2) : name;
}

export function parseUnifiedDiff(patch: string): StructuredPatch[] {
  let parsed: StructuredPatch[];
  try {
    parsed = parsePatch(toLf(patch));
  } catch (err) {
    throw toolgateError('PATCH_FAILED', `The patch could not be parsed: ${(err as Error).message}`, {
      suggestion: 'Send a unified diff: "--- a/path", "+++ b/path" and "@@ -l,n +l,n @@" hunks per file.',
    });
  }
  const files = parsed.filter((p) => p.hunks.length > 0 || (p.oldFileName && p.newFileName));
  if (files.length === 0) {
    throw toolgateError('PATCH_FAILED', 'The patch contains no file changes', {
      suggestion: 'Each file needs "--- " and "+++ " header lines followed by @@ hunks.',
    });
  }
  return files;
}

const hunkHeader = (h: StructuredPatchHunk) =>
  `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`;

function hunkFailure(text: string, file: StructuredPatch, relative: string): never {
  const index = file.hunks.findIndex((hunk) => applyPatch(text, { ...file, hunks: [hunk] }) === false);
  const hunk = index >= 0 ? file.hunks[index] : undefined;
  const expected = hunk
    ? hunk.lines
        .filter((l) => l[0] === ' ' || l[0] === '-')
        .map((l) => l.slice(1))
        .join('\n')
    : '';
  const closest = hunk ? closestRegion(text.split('\n'), expected) : undefined;
  const which = hunk
    ? `hunk ${index + 1} of ${file.hunks.length} (${hunkHeader(hunk)})`
    : 'the hunks, applied together,';
  throw toolgateError('PATCH_FAILED', `${which} does not apply to ${relative}`, {
    suggestion: closest
      ? `Its context and removed lines do not match the file. The closest text (lines ${closest.startLine}-${closest.endLine}) is:\n${closest.text.slice(0, 1500)}\nRead the file again and regenerate the patch.`
      : 'Read the file again and regenerate the patch.',
    details: { path: relative, hunk: index + 1 },
  });
}

const count = (file: StructuredPatch, sign: string) =>
  file.hunks.reduce((n, h) => n + h.lines.filter((l) => l[0] === sign).length, 0);

async function load(ctx: ToolContext, target: ResolvedPath, expected?: string) {
  const file = await loadTextFile(ctx.workspace, target.relative, ctx.limits.editMaxBytes);
  checkFresh(ctx, target.relative, file.exists ? file.sha256 : undefined, expected);
  return file;
}

/** `expected` maps workspace-relative paths to the SHA-256 the caller expects them to have. */
export async function planFile(
  ctx: ToolContext,
  patch: StructuredPatch,
  expected: Record<string, string> = {},
): Promise<FilePlan> {
  const oldName = cleanName(patch.oldFileName, 'a/');
  const newName = cleanName(patch.newFileName, 'b/');
  if (!oldName && !newName) throw toolgateError('PATCH_FAILED', 'A file in the patch has no name');
  const status: PatchStatus = !oldName
    ? 'added'
    : !newName
      ? 'deleted'
      : oldName === newName
        ? 'modified'
        : 'renamed';
  const target = await ctx.workspace.resolve((newName ?? oldName)!);
  const from = status === 'renamed' ? await ctx.workspace.resolve(oldName!) : undefined;
  if (target.relative === '.' || from?.relative === '.')
    throw toolgateError('NOT_A_FILE', 'The patch names the workspace root');
  const source = await load(ctx, from ?? target, expected[(from ?? target).relative]);
  if (status === 'added' && source.exists) {
    throw toolgateError('ALREADY_EXISTS', `The patch creates ${target.relative}, which already exists`);
  }
  if (status !== 'added' && !source.exists) {
    throw toolgateError(
      'FILE_NOT_FOUND',
      `The patch changes ${(from ?? target).relative}, which does not exist`,
    );
  }
  if (status === 'renamed' && (await ctx.workspace.stat(target.relative, { follow: false })).stat) {
    throw toolgateError('ALREADY_EXISTS', `The patch renames onto ${target.relative}, which already exists`);
  }
  const result = patch.hunks.length ? applyPatch(source.text, patch) : source.text;
  if (result === false) hunkFailure(source.text, patch, (from ?? target).relative);
  if (status === 'deleted' && result !== '') {
    throw toolgateError(
      'PATCH_FAILED',
      `The patch deletes ${target.relative} but does not remove all of its lines`,
      {
        suggestion: 'A deletion must remove every line of the file; read it again and regenerate the patch.',
      },
    );
  }
  const bytes = encodeText(source, result);
  const previous = source.raw ? { bytes: source.raw, mode: source.mode } : undefined;
  const writes: PlannedWrite[] =
    status === 'deleted'
      ? [{ relative: target.relative, bytes: null }]
      : status === 'renamed'
        ? [
            { relative: from!.relative, bytes: null },
            { relative: target.relative, bytes, mode: source.mode },
          ]
        : [{ relative: target.relative, bytes, mode: source.mode, previous }];
  return { status, target, from, additions: count(patch, '+'), deletions: count(patch, '-'), writes };
}
