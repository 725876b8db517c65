// How the edit engine hands its CPU-heavy steps (edit-jobs.ts) to the CpuPool: as the call's session, under
// the call's cancellation, so a timeout or a disconnect ends the work at once.
import { jobModule } from '../cpu/job-module.js';
import type { EditContext } from './edit-context.js';
import type * as EditJobs from './edit-jobs.js';

export const EDIT_JOBS = jobModule(import.meta.url, './edit-jobs');

type JobName = 'editText' | 'placeV4a' | 'applyUnified';

const LABELS: Record<JobName, string> = {
  editText: 'Matching old_string',
  placeV4a: 'Placing the patch chunks',
  applyUnified: 'Fitting the patch hunks',
};

export function editJob<N extends JobName>(
  ctx: EditContext,
  fn: N,
  input: Parameters<(typeof EditJobs)[N]>[0],
): Promise<ReturnType<(typeof EditJobs)[N]>> {
  return ctx.services.cpu.run(
    { module: EDIT_JOBS, fn, input, label: LABELS[fn] },
    { owner: ctx.session.id, ...(ctx.signal ? { signal: ctx.signal } : {}) },
  );
}
