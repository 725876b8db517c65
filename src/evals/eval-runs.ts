// Eval runs in the background (POST /v1/evals): each run a job with an id, progress while it runs and
// its report when done, kept as JSON under <dataDir>/evals/ (the newest KEEP, so runs outlive a restart
// and the console can list them). At most MAX_RUNNING at a time; close() stops the running ones after
// the case each is in and waits for them.
import { randomBytes } from 'node:crypto';
import { mkdirSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { toolgateError } from '../lib/errors.js';
import type { ToolLogger } from '../lib/logger.js';
import type { Dataset } from './dataset.js';
import { runEvals, selectCases, type EvalTarget } from './runner.js';
import type { EvalRun } from './run-schema.js';

export interface StartOptions {
  datasets: Dataset[];
  targets: EvalTarget[];
  tools: string[];
  concurrency: number;
  /** The id of an earlier run to compare with (regressions and fixes). */
  compareTo?: string;
}

const MAX_RUNNING = 2;
const KEEP = 50;
const RUN_ID = /^eval_[A-Za-z0-9_-]{16}$/;

export class EvalRuns {
  private readonly runs = new Map<string, EvalRun>();
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();

  private constructor(
    private readonly dir: string,
    private readonly logger: ToolLogger,
  ) {}

  /** Loads the runs kept in `dir` (made if missing); a file that cannot be read is skipped. */
  static async open(dir: string, logger: ToolLogger): Promise<EvalRuns> {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const runs = new EvalRuns(dir, logger);
    for (const name of await fs.readdir(dir)) {
      if (!name.endsWith('.json')) continue;
      try {
        const run = JSON.parse(await fs.readFile(path.join(dir, name), 'utf8')) as EvalRun;
        if (RUN_ID.test(run.id)) runs.runs.set(run.id, run);
      } catch (err) {
        logger.warn({ err, file: name }, 'skipped an eval run file that cannot be read');
      }
    }
    return runs;
  }

  /** Newest first. */
  list(): EvalRun[] {
    return [...this.runs.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  get(id: string): EvalRun {
    const run = this.runs.get(id);
    if (!run)
      throw toolgateError('NOT_FOUND', `No eval run ${id}`, { suggestion: 'List runs with GET /v1/evals.' });
    return run;
  }

  start(options: StartOptions): EvalRun {
    if (this.running.size >= MAX_RUNNING) {
      throw toolgateError('CONFLICT', `${MAX_RUNNING} eval runs are running already`, {
        suggestion: 'Wait for one to finish (GET /v1/evals) or cancel one (DELETE /v1/evals/{id}).',
      });
    }
    const previous = options.compareTo ? this.get(options.compareTo).report : undefined;
    if (options.compareTo && !previous) {
      throw toolgateError('CONFLICT', `Eval run ${options.compareTo} has no report to compare with`);
    }
    const run: EvalRun = {
      id: `eval_${randomBytes(12).toString('base64url')}`,
      status: 'running' as const,
      createdAt: new Date().toISOString(),
      finishedAt: null,
      datasets: options.datasets.map((d) => d.name),
      tools: options.tools,
      variants: options.targets.map((t) => t.variant.name),
      concurrency: options.concurrency,
      // The total is known before the first case ends: the console's progress bar needs it.
      progress: {
        total: selectCases(options.datasets, options.tools).length * options.targets.length,
        done: 0,
        passed: 0,
        failed: 0,
      },
      error: null,
      report: null,
    };
    this.runs.set(run.id, run);
    const abort = new AbortController();
    const done = runEvals(options.datasets, options.targets, {
      concurrency: options.concurrency,
      tools: options.tools,
      signal: abort.signal,
      previous: previous ?? undefined,
      onProgress: (progress) => {
        run.progress = progress;
      },
    })
      .then((report) => {
        run.report = report;
        run.status = abort.signal.aborted ? 'cancelled' : 'completed';
      })
      .catch((err: unknown) => {
        run.status = 'failed';
        run.error = (err as Error).message;
        this.logger.error({ err, evalRun: run.id }, 'eval run failed');
      })
      .finally(() => {
        run.finishedAt = new Date().toISOString();
        this.running.delete(run.id);
        return this.keep(run);
      });
    this.running.set(run.id, { abort, done });
    return run;
  }

  /** Stops a running run after the cases in flight (its report covers what ran); forgets a finished one. */
  async remove(id: string): Promise<EvalRun> {
    const run = this.get(id);
    const job = this.running.get(id);
    if (job) {
      job.abort.abort();
      await job.done;
      return run;
    }
    this.runs.delete(id);
    await fs.rm(this.fileOf(id), { force: true });
    return run;
  }

  async close(): Promise<void> {
    for (const job of this.running.values()) job.abort.abort();
    await Promise.all([...this.running.values()].map((job) => job.done));
  }

  private fileOf(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  /** Writes the finished run and drops the oldest beyond KEEP; a failed write is logged, not thrown. */
  private async keep(run: EvalRun): Promise<void> {
    try {
      await fs.writeFile(this.fileOf(run.id), JSON.stringify(run), { mode: 0o600 });
      const finished = this.list().filter((r) => r.status !== 'running');
      for (const old of finished.slice(KEEP)) {
        this.runs.delete(old.id);
        await fs.rm(this.fileOf(old.id), { force: true });
      }
    } catch (err) {
      this.logger.warn({ err, evalRun: run.id }, 'could not keep the eval run');
    }
  }
}
