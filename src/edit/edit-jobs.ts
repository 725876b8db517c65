// The edit engine's CPU-heavy steps as CpuPool jobs (src/cpu/): pure functions of structured-cloneable
// input, run in a worker thread with a deadline, never on the service's event loop. Matching old_string
// with the fuzzy rules, placing V4A chunks and fitting unified-diff hunks all cost up to file lines ×
// pattern lines; a hostile input may cost seconds, and then it costs only its own worker.
import { applyPatch, type StructuredPatch } from 'diff';
import { isToolgateError, toolgateError } from '../lib/errors.js';
import { applyEdit, type Edit } from './apply-edit.js';
import type { StrategyName } from './edit-strategies.js';
import { hunkFailure } from './patch.js';
import { unifiedDiff } from './unified-diff.js';
import { applyV4aChunks, type V4aResult } from './v4a-apply.js';
import type { V4aChunk } from './v4a-parse.js';

/** Adds which edit failed (1-based) to an error's details when there are several. */
function withEditIndex<T>(index: number, count: number, apply: () => T): T {
  try {
    return apply();
  } catch (err) {
    if (count === 1 || !isToolgateError(err)) throw err;
    throw toolgateError(err.code, err.message, {
      suggestion: err.suggestion,
      details: { ...err.details, edit: index + 1 },
    });
  }
}

export interface EditTextInput {
  text: string;
  /** The edits with old_string and new_string already in the file's line endings. */
  edits: Edit[];
  relative: string;
  diffMaxBytes: number;
}

export interface EditTextOutput {
  text: string;
  replacements: number;
  strategies: StrategyName[];
  diff: string;
  diffTruncated: boolean;
}

/** All edits in order, each on the previous one's result (all or none), and the diff of the whole. */
export function editText(input: EditTextInput): EditTextOutput {
  let text = input.text;
  let replacements = 0;
  const strategies: StrategyName[] = [];
  const count = input.edits.length;
  input.edits.forEach((edit, index) => {
    const context = count > 1 ? ` (edit ${index + 1} of ${count})` : '';
    const outcome = withEditIndex(index, count, () => applyEdit(text, edit, input.relative, context));
    text = outcome.text;
    replacements += outcome.replacements;
    strategies.push(outcome.strategy);
  });
  return {
    text,
    replacements,
    strategies,
    ...unifiedDiff(input.relative, input.text, text, input.diffMaxBytes),
  };
}

export function placeV4a(input: { text: string; chunks: V4aChunk[]; path: string }): V4aResult {
  return applyV4aChunks(input.text, input.chunks, input.path);
}

/** A unified diff's hunks applied to one file's text; a hunk that does not fit is named. */
export function applyUnified(input: { text: string; patch: StructuredPatch; relative: string }): string {
  const result = input.patch.hunks.length ? applyPatch(input.text, input.patch) : input.text;
  if (result === false) hunkFailure(input.text, input.patch, input.relative);
  return result;
}
