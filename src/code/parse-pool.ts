// A small pool of worker threads that parse files for the code index. Started on first use, stopped by
// close(); when workers cannot start here, parse() rejects and the caller parses in its own thread.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { LanguageId } from './languages.js';
import type { ParseRequest } from './parse-worker.js';
import type { FileSummary } from './schema.js';

interface Pending {
  resolve: (summary: FileSummary) => void;
  reject: (err: Error) => void;
}

interface PoolWorker {
  worker: Worker;
  pending: Map<number, Pending>;
}

type WorkerReply = { id: number; summary: FileSummary } | { id: number; error: string };

// The worker module sits beside this one: .ts when run from source (tsx, vitest), .js when built.
// From source the worker registers tsx itself, so it works whatever flags the parent was started with.
const bootstrap = (moduleUrl: string) =>
  moduleUrl.endsWith('.ts')
    ? `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(moduleUrl)}); });`
    : `import(${JSON.stringify(moduleUrl)});`;

export class ParsePool {
  private workers: PoolWorker[] = [];
  private nextId = 0;
  private turn = 0;
  private broken = false;
  readonly size: number;

  // Each worker pays for its own wasm compile of every grammar; measured on 2 busy cores that cost more
  // than the second core gave back, so workers are used from 3 cores on (one stays with the server).
  constructor(size = availableParallelism() > 2 ? Math.min(4, availableParallelism() - 1) : 1) {
    this.size = Math.max(1, size);
  }

  get available(): boolean {
    return !this.broken && this.size > 1;
  }

  private start(): void {
    const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    const moduleUrl = new URL(`./parse-worker${ext}`, import.meta.url).href;
    for (let i = 0; i < this.size; i++) {
      const worker = new Worker(bootstrap(moduleUrl), { eval: true });
      // Idle workers must not keep the process alive.
      worker.unref();
      const entry: PoolWorker = { worker, pending: new Map() };
      worker.on('message', (reply: WorkerReply) => {
        const pending = entry.pending.get(reply.id);
        if (!pending) return;
        entry.pending.delete(reply.id);
        if ('error' in reply) pending.reject(new Error(reply.error));
        else pending.resolve(reply.summary);
      });
      worker.on('error', (err) => this.fail(entry, err));
      worker.on('exit', () => this.fail(entry, new Error('parse worker exited')));
      this.workers.push(entry);
    }
  }

  private fail(entry: PoolWorker, err: Error): void {
    this.broken = true;
    for (const pending of entry.pending.values()) pending.reject(err);
    entry.pending.clear();
  }

  parse(path: string, language: LanguageId, source: string): Promise<FileSummary> {
    if (this.broken) return Promise.reject(new Error('parse workers unavailable'));
    if (!this.workers.length) this.start();
    const entry = this.workers[this.turn++ % this.workers.length];
    const id = this.nextId++;
    return new Promise<FileSummary>((resolve, reject) => {
      entry.pending.set(id, { resolve, reject });
      const request: ParseRequest = { id, path, language, source };
      entry.worker.postMessage(request);
    });
  }

  async close(): Promise<void> {
    const workers = this.workers;
    this.workers = [];
    this.broken = true;
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }
}
