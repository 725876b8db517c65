// The code index service: per workspace, every source file's tags, kept between calls and refreshed
// incrementally — a file is parsed again only when its size or mtime changed; deleted files drop out.
import { readFiles } from '../runtime/read-files.js';
import type { Workspace } from '../runtime/workspace.js';
import { languageOf, SOURCE_FILTER, type LanguageId } from './languages.js';
import { jobModule } from '../cpu/job-module.js';
import type { CpuPool } from '../cpu/cpu-pool.js';
import { isToolgateError } from '../lib/errors.js';
import { ParsePool } from './parse-pool.js';
import { parseFile, type ParseJobInput } from './parse-jobs.js';
import type { FileSummary } from './schema.js';
import { IndexSnapshot } from './snapshot.js';

export interface CodeIndexOptions {
  /** Workspaces whose index is kept in memory; the least recently used one is dropped beyond this. */
  maxWorkspaces?: number;
  /** Files larger than this are not parsed (generated bundles, minified code). */
  maxFileBytes?: number;
  /** The walk stops after this many source files. */
  maxFiles?: number;
  /** Parse worker threads for cold indexing (default: cores - 1 from 3 cores on, at most 4; 1 = in-thread). */
  workers?: number;
  /**
   * The CPU pool (src/cpu): a file larger than INLINE_PARSE_CHARS is parsed there, as its session and
   * under the job deadline, never on the service's thread. Unset (tests of the index alone): here.
   */
  cpu?: Pick<CpuPool, 'run'>;
}

interface CachedFile {
  readonly size: number;
  readonly mtimeMs: number;
  /** undefined: the file was looked at and left out (too large, binary, unparsable). */
  readonly summary: FileSummary | undefined;
}

interface WorkspaceEntry {
  readonly files: Map<string, CachedFile>;
  /** Refreshes of one workspace run one after another, so two calls never parse the same file twice. */
  queue: Promise<unknown>;
  snapshot?: IndexSnapshot;
}

// Parsing is synchronous wasm work; handing the event loop back this often keeps other requests moving.
const YIELD_EVERY_MS = 25;
const READ_BATCH = 32;
// Fewer stale files than this are parsed in-thread: starting workers and copying text costs more.
const WORKER_THRESHOLD = 48;
/**
 * Larger files are parsed in the CPU pool: parsing costs a few µs per character (16 KiB: ~20 ms on a quiet
 * 2-core machine), so one file parsed here holds the event loop at most about that long between yields.
 */
export const INLINE_PARSE_CHARS = 16 * 1024;
/** The pool's job for one file (parse-jobs.ts); its label names it in errors and metrics. */
export const PARSE_JOBS = jobModule(import.meta.url, './parse-jobs');
const PARSE_LABEL = 'Parsing a source file';

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class CodeIndex {
  private readonly pool: ParsePool;
  private readonly workspaces = new Map<string, WorkspaceEntry>();
  private readonly maxWorkspaces: number;
  private readonly maxFileBytes: number;
  private readonly maxFiles: number;
  private readonly cpu: Pick<CpuPool, 'run'> | undefined;

  constructor(options: CodeIndexOptions = {}) {
    this.cpu = options.cpu;
    this.maxWorkspaces = options.maxWorkspaces ?? 16;
    this.maxFileBytes = options.maxFileBytes ?? 1024 * 1024;
    this.maxFiles = options.maxFiles ?? 50_000;
    this.pool = new ParsePool(options.workers);
  }

  /** Drops a workspace's index (its session was deleted). */
  forget(key: string): void {
    this.workspaces.delete(key);
  }

  /**
   * The index of a session's workspace (cached under `key`, the session id), brought up to date. The
   * walk and the reads happen in the session runtime; parsing happens here.
   */
  snapshot(key: string, workspace: Workspace, signal: AbortSignal): Promise<IndexSnapshot> {
    let entry = this.workspaces.get(key);
    if (entry) this.workspaces.delete(key);
    entry ??= { files: new Map(), queue: Promise.resolve() };
    // Re-inserting keeps the map in least-recently-used order.
    this.workspaces.set(key, entry);
    while (this.workspaces.size > this.maxWorkspaces) {
      const oldest = this.workspaces.keys().next().value;
      if (oldest === undefined) break;
      this.workspaces.delete(oldest);
    }
    const target = entry;
    const run = target.queue.then(() => this.refresh(key, workspace, target, signal));
    target.queue = run.catch(() => undefined);
    return run;
  }

  private async parseHere(
    path: string,
    language: LanguageId,
    text: string,
  ): Promise<FileSummary | undefined> {
    // The pool's job, run here: one grammar loader per thread (this module's is parse-jobs.ts's).
    return (await parseFile({ path, language, text })) ?? undefined;
  }

  /**
   * A large file in the CPU pool, as session `owner`. One that passes the job's deadline or the worker's
   * heap is left out of the index like an unparsable one (and not tried again until it changes); the
   * call's own cancellation and a closing pool end the refresh.
   */
  private async parseInPool(
    owner: string,
    input: ParseJobInput,
    signal: AbortSignal,
  ): Promise<FileSummary | undefined> {
    try {
      const summary = await this.cpu!.run<FileSummary | null>(
        { module: PARSE_JOBS, fn: 'parseFile', input, label: PARSE_LABEL },
        { owner, signal },
      );
      return summary ?? undefined;
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (isToolgateError(err) && (err.code === 'TIMEOUT' || err.code === 'INPUT_TOO_LARGE'))
        return undefined;
      throw err;
    }
  }

  /** Stops the parse workers. */
  async close(): Promise<void> {
    this.workspaces.clear();
    await this.pool.close();
  }

  private async refresh(
    key: string,
    workspace: Workspace,
    entry: WorkspaceEntry,
    signal: AbortSignal,
  ): Promise<IndexSnapshot> {
    const started = performance.now();
    if (signal.aborted) throw signal.reason;
    const walk = (
      await workspace.call('walkSource', {
        path: '.',
        filter: {
          extensions: [...SOURCE_FILTER.extensions],
          excludeSuffixes: [...SOURCE_FILTER.excludeSuffixes],
        },
        maxFiles: this.maxFiles,
      })
    ).result;
    const seen = new Set<string>();
    const stale = [];
    for (const file of walk.files) {
      seen.add(file.path);
      const cached = entry.files.get(file.path);
      if (!cached || cached.size !== file.size || cached.mtimeMs !== file.mtimeMs) stale.push(file);
    }
    let changed = stale.length > 0;
    for (const path of entry.files.keys()) {
      if (!seen.has(path)) {
        entry.files.delete(path);
        changed = true;
      }
    }
    // Many files (a cold start) go to the worker pool; a few (an edit) are quicker parsed right here.
    const useWorkers = stale.length >= WORKER_THRESHOLD && this.pool.available;
    const batchSize = useWorkers ? this.pool.size * 16 : READ_BATCH;
    let sliceStart = performance.now();
    for (let i = 0; i < stale.length; i += batchSize) {
      if (signal.aborted) throw signal.reason;
      const batch = stale.slice(i, i + batchSize);
      const contents = await readFiles(
        workspace,
        batch.map((f) => f.path),
        this.maxFileBytes,
      );
      const texts = batch.map((file, j) => {
        const bytes = contents[j];
        const language = languageOf(file.path);
        // Binary files (a NUL in the first 8 KiB) are left out like unparsable ones.
        return bytes && language && !bytes.subarray(0, 8192).includes(0)
          ? { language, text: bytes.toString('utf8') }
          : undefined;
      });
      if (useWorkers) {
        const summaries = await Promise.all(
          batch.map((file, j) => {
            const input = texts[j];
            if (!input) return undefined;
            if (this.cpu && input.text.length > INLINE_PARSE_CHARS)
              return this.parseInPool(key, { path: file.path, ...input }, signal);
            return this.pool
              .parse(file.path, input.language, input.text)
              .catch(() => this.parseHere(file.path, input.language, input.text));
          }),
        );
        batch.forEach((file, j) =>
          entry.files.set(file.path, { size: file.size, mtimeMs: file.mtimeMs, summary: summaries[j] }),
        );
        continue;
      }
      for (let j = 0; j < batch.length; j++) {
        if (signal.aborted) throw signal.reason;
        const file = batch[j];
        const input = texts[j];
        const summary = !input
          ? undefined
          : this.cpu && input.text.length > INLINE_PARSE_CHARS
            ? await this.parseInPool(key, { path: file.path, ...input }, signal)
            : await this.parseHere(file.path, input.language, input.text);
        entry.files.set(file.path, { size: file.size, mtimeMs: file.mtimeMs, summary });
        if (performance.now() - sliceStart > YIELD_EVERY_MS) {
          await yieldToEventLoop();
          sliceStart = performance.now();
        }
      }
    }
    const stats = () => ({
      files: walk.files.length - skipped,
      parsed: stale.length,
      reused: walk.files.length - stale.length,
      skipped,
      truncated: walk.truncated,
      durationMs: Math.round(performance.now() - started),
    });
    let skipped = 0;
    if (!changed && entry.snapshot && entry.snapshot.stats.truncated === walk.truncated) {
      // Nothing changed: the same snapshot (and the lookups it already built) serves this call too.
      skipped = entry.snapshot.stats.skipped;
      entry.snapshot.stats = stats();
      return entry.snapshot;
    }
    const summaries: FileSummary[] = [];
    for (const file of walk.files) {
      const summary = entry.files.get(file.path)?.summary;
      if (summary) summaries.push(summary);
      else skipped++;
    }
    entry.snapshot = new IndexSnapshot(summaries, stats());
    return entry.snapshot;
  }
}
