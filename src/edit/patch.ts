// Pure unified-diff handling: parsing (diff's parsePatch), file names, and the error for a hunk that
// does not fit, with the closest text. No I/O: patch-plan.ts applies it to files.
import { applyPatch, parsePatch, type StructuredPatch, type StructuredPatchHunk } from 'diff';
import { toolgateError } from '../lib/errors.js';
import { closestRegion } from './similarity.js';
import { toLf } from './text-file.js';

const NULL_PATH = '/dev/null';

/** git-style "a/" and "b/" prefixes are stripped. */
export function cleanName(name: string | undefined, prefix: 'a/' | 'b/'): string | null {
  if (!name || name === NULL_PATH) return null;
  return name.startsWith(prefix) ? name.slice(2) : name;
}

export type PatchStatus = 'added' | 'modified' | 'deleted' | 'renamed';

/** What a file of a patch does, from its names ("/dev/null" on one side: added or deleted). */
export function patchStatus(file: Pick<StructuredPatch, 'oldFileName' | 'newFileName'>): {
  status: PatchStatus;
  oldName: string | null;
  newName: string | null;
} {
  const oldName = cleanName(file.oldFileName, 'a/');
  const newName = cleanName(file.newFileName, 'b/');
  if (!oldName && !newName) throw toolgateError('PATCH_FAILED', 'A file in the patch has no name');
  const status: PatchStatus = !oldName
    ? 'added'
    : !newName
      ? 'deleted'
      : oldName === newName
        ? 'modified'
        : 'renamed';
  return { status, oldName, newName };
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

export function hunkFailure(text: string, file: StructuredPatch, relative: string): never {
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

export const count = (file: StructuredPatch, sign: string) =>
  file.hunks.reduce((n, h) => n + h.lines.filter((l) => l[0] === sign).length, 0);
