// How the edit engine runs its CPU-heavy steps (edit-jobs.ts): a small job (a file and a pattern whose
// lines multiply to little, the everyday edit) inline, where a worker round trip would cost more than the
// work; anything larger in the CpuPool as the call's session, under the call's cancellation, so a timeout
// or a disconnect ends the work at once.
import { jobModule } from '../cpu/job-module.js';
import type { EditContext } from './edit-context.js';
import * as EditJobs from './edit-jobs.js';

export const EDIT_JOBS = jobModule(import.meta.url, './edit-jobs');

type JobName = 'editText' | 'placeV4a' | 'applyUnified';

const LABELS: Record<JobName, string> = {
  editText: 'Matching old_string',
  placeV4a: 'Placing the patch chunks',
  applyUnified: 'Fitting the patch hunks',
};

/**
 * Inline below these: the matching rules cost up to file lines × pattern lines (the bound below keeps
 * that to a few milliseconds), and the diff of the result grows with the file's size.
 */
const INLINE_MAX_TEXT_CHARS = 256 * 1024;
const INLINE_MAX_LINE_PRODUCT = 200_000;

const lineCount = (text: string): number => {
  let lines = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
  return lines;
};

/** The pattern's lines of a job: old_strings, V4A chunk lines, unified-diff hunk lines. */
function patternLines<N extends JobName>(fn: N, input: Parameters<(typeof EditJobs)[N]>[0]): number {
  if (fn === 'editText') {
    const { edits } = input as Parameters<typeof EditJobs.editText>[0];
    return edits.reduce((sum, edit) => sum + lineCount(edit.old_string), 0);
  }
  if (fn === 'placeV4a') {
    const { chunks } = input as Parameters<typeof EditJobs.placeV4a>[0];
    return chunks.reduce((sum, chunk) => sum + chunk.lines.length, 0);
  }
  const { patch } = input as Parameters<typeof EditJobs.applyUnified>[0];
  return patch.hunks.reduce((sum, hunk) => sum + hunk.lines.length, 0);
}

export function editJob<N extends JobName>(
  ctx: EditContext,
  fn: N,
  input: Parameters<(typeof EditJobs)[N]>[0],
): Promise<ReturnType<(typeof EditJobs)[N]>> {
  const { text } = input as { text: string };
  if (
    text.length <= INLINE_MAX_TEXT_CHARS &&
    lineCount(text) * patternLines(fn, input) <= INLINE_MAX_LINE_PRODUCT
  ) {
    try {
      return Promise.resolve(
        (EditJobs[fn] as (job: typeof input) => ReturnType<(typeof EditJobs)[N]>)(input),
      );
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }
  return ctx.services.cpu.run(
    { module: EDIT_JOBS, fn, input, label: LABELS[fn] },
    { owner: ctx.session.id, ...(ctx.signal ? { signal: ctx.signal } : {}) },
  );
}
