// The summary of a job every job tool returns, and the job_id input they share.
import { Type, type Static } from 'typebox';
import type { Job } from './job.js';

export const JobIdInput = Type.String({
  pattern: '^job_[A-Za-z0-9_-]{1,40}$',
  description: 'Job id returned by run_command (background or detached) or job_list',
});

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const JobSummary = Type.Object({
  jobId: Type.String(),
  command: Type.String({ description: 'The command (cut to 200 characters)' }),
  cwd: Type.String({ description: 'Working directory, workspace-relative' }),
  status: Type.Enum(['running', 'exited', 'killed']),
  exitCode: Nullable(Type.Integer()),
  signal: Nullable(Type.String({ description: 'Signal that ended the command (e.g. SIGKILL, SIGXCPU)' })),
  killReason: Nullable(
    Type.Enum(
      [
        'timeout',
        'idle_timeout',
        'output_limit',
        'killed',
        'cancelled',
        'session_deleted',
        'shutdown',
        'quota',
      ],
      { description: 'Why toolgate stopped the command' },
    ),
  ),
  timedOut: Type.Boolean(),
  startedAt: Type.String({ format: 'date-time' }),
  durationMs: Type.Integer(),
  outputBytes: Type.Integer({ description: 'Bytes in the job log (stdout and stderr interleaved)' }),
  outputLimitReached: Type.Boolean({ description: 'The log hit its size cap and the command was stopped' }),
  logError: Type.Optional(
    Type.String({
      description: 'Why the job log stopped growing early (e.g. a full disk); the command ran on',
    }),
  ),
  stdinOpen: Type.Boolean({ description: 'job_input can still write to the command' }),
});
export type JobSummaryData = Static<typeof JobSummary>;

export function jobSummary(job: Job): JobSummaryData {
  return {
    jobId: job.id,
    command: job.command.length > 200 ? `${job.command.slice(0, 200)}…` : job.command,
    cwd: job.cwd,
    status: job.status,
    exitCode: job.exit?.exitCode ?? null,
    signal: job.exit?.signal ?? null,
    killReason: job.killReason,
    timedOut: job.timedOut,
    startedAt: new Date(job.startedAt).toISOString(),
    durationMs: job.durationMs,
    outputBytes: job.log.bytes,
    outputLimitReached: job.log.full,
    ...(job.log.failure !== null ? { logError: job.log.failure } : {}),
    stdinOpen: job.stdinOpen,
  };
}

/** One line for an LLM: "job_x exited 0 after 120 ms: npm test". */
export function jobLine(job: JobSummaryData): string {
  const state =
    job.status === 'running'
      ? 'running'
      : job.status === 'exited'
        ? `exited ${job.exitCode ?? job.signal}`
        : `killed (${job.killReason}${job.signal ? `, ${job.signal}` : ''})`;
  return `${job.jobId} ${state} after ${job.durationMs} ms: ${job.command}`;
}
