// What a runtime that outlives its service (container backends) keeps of its tagged commands (jobs): the
// last part of their output and their exit, so a restarted service can adopt them as the same jobs and
// read what they printed meanwhile (`procs`, `adopt`). Bounded: the last `maxBytes` per command, and
// ended commands beyond `maxEnded` are forgotten oldest first. Off (null) for bwrap and none.
import type { KeptProcess } from '../ops/commands.js';
import type { ProcessEventHeader } from '../protocol.js';

type Exit = Extract<ProcessEventHeader, { t: 'exit' }>;

interface Kept {
  readonly tag: Readonly<Record<string, unknown>>;
  readonly chunks: Array<{ stream: 'stdout' | 'stderr'; chunk: Buffer }>;
  bytes: number;
  droppedBytes: number;
  exit?: Exit;
}

export class KeptOutput {
  private readonly kept = new Map<number, Kept>();

  constructor(
    private readonly maxBytes: number,
    private readonly maxEnded = 50,
  ) {}

  track(proc: number, tag: Readonly<Record<string, unknown>> | undefined): void {
    if (tag) this.kept.set(proc, { tag, chunks: [], bytes: 0, droppedBytes: 0 });
  }

  out(proc: number, stream: 'stdout' | 'stderr', chunk: Buffer): void {
    const entry = this.kept.get(proc);
    if (!entry) return;
    entry.chunks.push({ stream, chunk });
    entry.bytes += chunk.length;
    while (entry.bytes > this.maxBytes && entry.chunks.length > 1) {
      const dropped = entry.chunks.shift()!;
      entry.bytes -= dropped.chunk.length;
      entry.droppedBytes += dropped.chunk.length;
    }
  }

  exit(proc: number, exit: Exit): void {
    const entry = this.kept.get(proc);
    if (!entry) return;
    entry.exit = exit;
    const ended = [...this.kept].filter(([, kept]) => kept.exit);
    for (const [oldest] of ended.slice(0, Math.max(0, ended.length - this.maxEnded)))
      this.kept.delete(oldest);
  }

  list(): KeptProcess[] {
    return [...this.kept].map(([proc, entry]) => ({
      proc,
      tag: entry.tag,
      running: entry.exit === undefined,
      droppedBytes: entry.droppedBytes,
    }));
  }

  /** Sends the kept output and exit of `proc` again, marked as replay; false when it is not kept. */
  replay(proc: number, send: (header: ProcessEventHeader, payload?: Uint8Array) => void): boolean {
    const entry = this.kept.get(proc);
    if (!entry) return false;
    for (const { stream, chunk } of entry.chunks) send({ t: 'out', proc, stream, replay: true }, chunk);
    if (entry.exit) send({ ...entry.exit, replay: true });
    return true;
  }
}
