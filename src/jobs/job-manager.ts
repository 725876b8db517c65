// All jobs of one app, by session: starts commands through the runner, finds them for the job tools,
// bounds how many run and how many finished ones (and their logs) are kept, and kills them when their
// session is deleted or the app shuts down.
import { randomBytes } from 'node:crypto';
import { mkdirSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { toolgateError } from '../lib/errors.js';
import type { CommandRunner } from '../runtime/runner/runner.js';
import type { CommandRequest, SessionRuntime } from '../runtime/session-runtime.js';
import { Job, type KillReason } from './job.js';
import { JobLog } from './job-log.js';

export interface JobLimits {
  /** Cap per stream on what a run_command response carries (head + tail). */
  outputMaxBytes: number;
  /** Cap on a job's full log; a job printing more is stopped (killReason output_limit). */
  logMaxBytes: number;
  maxRunningPerSession: number;
  /** Finished jobs kept per session (oldest dropped with its log). */
  maxKeptPerSession: number;
  /** All kept logs of one session together; past it the oldest finished jobs' logs are dropped. */
  sessionLogMaxBytes: number;
}

export interface StartJob extends CommandRequest {
  sessionId: string;
  /** The session's runtime: the command starts inside it. */
  runtime: SessionRuntime;
  timeoutMs: number;
  idleTimeoutMs?: number;
  stdin?: string;
  keepStdinOpen: boolean;
}

const MiB = 1024 * 1024;

/** Job limits derived from the configured output cap. */
export const jobLimitsFor = (outputMaxBytes: number): JobLimits => ({
  outputMaxBytes,
  logMaxBytes: Math.max(32 * MiB, 4 * outputMaxBytes),
  maxRunningPerSession: 8,
  maxKeptPerSession: 50,
  sessionLogMaxBytes: 4 * Math.max(32 * MiB, 4 * outputMaxBytes),
});

const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** What a job's command carries into a runtime that outlives the service (see adopt). */
type JobTag = {
  readonly job: string;
  readonly command: string;
  readonly cwd: string;
  readonly startedAt: number;
  readonly timeoutMs: number;
};

const isJobTag = (
  tag: Readonly<Record<string, unknown>>,
): tag is Readonly<Record<string, unknown>> & JobTag =>
  typeof tag.job === 'string' &&
  /^job_[A-Za-z0-9_-]{1,40}$/.test(tag.job) &&
  typeof tag.command === 'string' &&
  typeof tag.cwd === 'string' &&
  typeof tag.startedAt === 'number' &&
  typeof tag.timeoutMs === 'number';
const newJobId = () => `job_${randomBytes(9).toString('base64url')}`;

/**
 * Jobs do not survive a restart, so logs left by the previous run are removed. The directory's contents
 * go, not the directory itself: an operator may have mounted a volume of its own there.
 */
export async function createJobManager(runner: CommandRunner, jobsDir: string, limits: JobLimits) {
  await fs.mkdir(jobsDir, { recursive: true, mode: 0o700 });
  for (const entry of await fs.readdir(jobsDir)) {
    await fs.rm(path.join(jobsDir, entry), { recursive: true, force: true });
  }
  return new JobManager(runner, jobsDir, limits);
}

export class JobManager {
  private readonly bySession = new Map<string, Map<string, Job>>();
  /** Resolves once jobs of the session kept by a runtime that outlived the service are adopted (services.ts). */
  adopted: (sessionId: string) => Promise<void> = () => Promise.resolve();

  constructor(
    private readonly runner: CommandRunner,
    readonly jobsDir: string,
    readonly limits: JobLimits,
  ) {}

  private dirFor(sessionId: string): string {
    if (!SESSION_ID.test(sessionId)) throw new Error(`invalid session id for a job log: ${sessionId}`);
    return path.join(this.jobsDir, sessionId);
  }

  async start(request: StartJob): Promise<Job> {
    const jobs = this.bySession.get(request.sessionId) ?? new Map<string, Job>();
    const running = [...jobs.values()].filter((job) => job.running).length;
    if (running >= this.limits.maxRunningPerSession) {
      throw toolgateError(
        'TOO_MANY_JOBS',
        `This session already has ${running} running commands (the limit is ${this.limits.maxRunningPerSession})`,
        { suggestion: 'Wait for a job with job_wait or stop one with job_kill, then retry.' },
      );
    }
    const dir = this.dirFor(request.sessionId);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch {
      // A full or read-only disk: the command still runs; its log cannot open and says why (JobLog).
    }
    const id = newJobId();
    const log = new JobLog(path.join(dir, `${id}.log`), this.limits.logMaxBytes);
    let process;
    try {
      const env = this.runner.commandEnv(request.env);
      const tag: JobTag = {
        job: id,
        command: request.command,
        cwd: request.cwd,
        startedAt: Date.now(),
        timeoutMs: request.timeoutMs,
      };
      process = await request.runtime.spawn({
        command: request.command,
        cwd: request.cwd,
        env,
        limits: request.limits,
        // A runtime that outlives the service keeps it, so a restarted service can adopt the job.
        ...(this.runner.runtimeBackend.persistent ? { tag } : {}),
      });
    } catch (err) {
      void log.remove();
      throw err;
    }
    const job = new Job({
      id,
      sessionId: request.sessionId,
      command: request.command,
      cwd: request.cwd,
      process,
      log,
      outputMaxBytes: this.limits.outputMaxBytes,
      timeoutMs: request.timeoutMs,
      idleTimeoutMs: request.idleTimeoutMs,
      stdin: request.stdin,
      keepStdinOpen: request.keepStdinOpen,
    });
    jobs.set(id, job);
    this.bySession.set(request.sessionId, jobs);
    void job.done.then(() => this.prune(request.sessionId));
    return job;
  }

  /**
   * Takes over the jobs a re-attached runtime kept (container backends after a service restart): the
   * same ids, their kept output (the last KEEP_OUTPUT_BYTES) in a new log, what they print from now on,
   * and their exit, whether it came before or after the restart. Jobs this service knows are left alone.
   */
  async adopt(runtime: SessionRuntime): Promise<void> {
    const jobs = this.bySession.get(runtime.sessionId) ?? new Map<string, Job>();
    const adopted = await runtime.adoptCommands((tag) => isJobTag(tag) && !jobs.has(tag.job));
    if (adopted.length === 0) return;
    const dir = this.dirFor(runtime.sessionId);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const { tag, process } of adopted) {
      if (!isJobTag(tag)) continue;
      const job = new Job({
        id: tag.job,
        sessionId: runtime.sessionId,
        command: tag.command,
        cwd: tag.cwd,
        process,
        log: new JobLog(path.join(dir, `${tag.job}.log`), this.limits.logMaxBytes),
        outputMaxBytes: this.limits.outputMaxBytes,
        timeoutMs: Math.max(1000, tag.startedAt + tag.timeoutMs - Date.now()),
        startedAt: tag.startedAt,
        keepStdinOpen: true,
      });
      jobs.set(job.id, job);
      void job.done.then(() => this.prune(runtime.sessionId));
    }
    this.bySession.set(runtime.sessionId, jobs);
  }

  /** Waits until the session's jobs from the service's previous life are adopted (see `adopted`). */
  async settled(sessionId: string): Promise<void> {
    await this.adopted(sessionId);
  }

  get(sessionId: string, jobId: string): Job {
    const job = this.bySession.get(sessionId)?.get(jobId);
    if (!job) {
      throw toolgateError('NOT_FOUND', `No job ${jobId.slice(0, 80)} in this session`, {
        suggestion: 'job_list shows the jobs of this session.',
      });
    }
    return job;
  }

  list(sessionId: string): Job[] {
    return [...(this.bySession.get(sessionId)?.values() ?? [])];
  }

  runningCount(): number {
    let count = 0;
    for (const jobs of this.bySession.values()) for (const job of jobs.values()) if (job.running) count++;
    return count;
  }

  /** Bytes in the session's kept job logs (running and finished). */
  logBytes(sessionId: string): number {
    let total = 0;
    for (const job of this.bySession.get(sessionId)?.values() ?? []) total += job.log.bytes;
    return total;
  }

  /** Sessions that have kept jobs. */
  sessionsWithJobs(): string[] {
    return [...this.bySession.keys()];
  }

  /** Drops the oldest finished jobs (with their logs) past the count and the session's log quota. */
  private prune(sessionId: string): void {
    const jobs = this.bySession.get(sessionId);
    if (!jobs) return;
    const finished = [...jobs.values()].filter((job) => !job.running);
    let total = this.logBytes(sessionId);
    let excess = Math.max(0, finished.length - this.limits.maxKeptPerSession);
    for (const job of finished) {
      if (excess <= 0 && total <= this.limits.sessionLogMaxBytes) break;
      jobs.delete(job.id);
      total -= job.log.bytes;
      excess--;
      void job.log.remove();
    }
  }

  private async stopAll(jobs: Iterable<Job>, reason: KillReason): Promise<void> {
    const list = [...jobs];
    for (const job of list) job.kill(reason);
    await Promise.all(list.map((job) => job.done));
  }

  /** Kills the session's jobs and removes their logs. */
  async killSession(sessionId: string): Promise<void> {
    const jobs = this.bySession.get(sessionId);
    this.bySession.delete(sessionId);
    if (jobs) await this.stopAll(jobs.values(), 'session_deleted');
    await fs.rm(this.dirFor(sessionId), { recursive: true, force: true });
  }

  /**
   * Kills every job. Their logs are removed at the next start: jobs do not survive a restart. Where
   * runtimes outlive the service (containers, pods), their commands are left running in them.
   */
  async close(): Promise<void> {
    if (this.runner.runtimeBackend.persistent) return;
    const all = [...this.bySession.values()].flatMap((jobs) => [...jobs.values()]);
    await this.stopAll(all, 'shutdown');
  }
}
