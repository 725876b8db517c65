// How much of the disk the workspace uses, without a full rescan on every call: a scan gives the
// numbers, tool writes adjust them by what they changed, and anything a command did marks them stale
// (commands write behind our back). While commands run under a quota, a watch rescans at an interval
// that grows with what a scan costs, and reports when the workspace has gone over.
import { lstatSync, readdirSync, type Dirent } from 'node:fs';
import path from 'node:path';

export interface Usage {
  bytes: number;
  files: number;
}

/** Rescan at most this often while commands run; slower when a scan is expensive (10× its duration). */
const MIN_WATCH_INTERVAL_MS = 500;
/** Entries a scan handles between two yields to the event loop. */
const YIELD_EVERY = 512;

export class UsageTracker {
  private cached: Usage | null = null;
  private stale = true;
  private scanning: Promise<Usage> | null = null;
  /** Duration of the last full scan, ms: the cost the watch interval is scaled by. */
  lastScanMs = 0;
  scans = 0;

  constructor(private readonly root: string) {}

  async current(): Promise<Usage> {
    if (this.cached && !this.stale) return { ...this.cached };
    return this.scan();
  }

  /** A command ran or a tree changed in ways we did not count: the next read rescans. */
  invalidate(): void {
    this.stale = true;
  }

  /** A tool's own change of known size (a write, a file removed). */
  adjust(bytes: number, files: number): void {
    if (!this.cached || this.stale) return;
    this.cached = {
      bytes: Math.max(0, this.cached.bytes + bytes),
      files: Math.max(0, this.cached.files + files),
    };
  }

  scan(): Promise<Usage> {
    this.scanning ??= this.walk().finally(() => (this.scanning = null));
    return this.scanning;
  }

  /**
   * The walk uses synchronous readdir and lstat, a few microseconds each where the promise versions
   * cost tens, and yields to the event loop every few thousand entries so command output and other
   * operations of the session keep flowing during a long scan.
   */
  private async walk(): Promise<Usage> {
    const began = performance.now();
    this.stale = false;
    let bytes = 0;
    let files = 0;
    let sinceYield = 0;
    const pending = [this.root];
    while (pending.length > 0) {
      const dir = pending.pop()!;
      let entries: Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue; // removed or replaced while we walked
      }
      for (const entry of entries) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) pending.push(full);
        else if (entry.isFile()) {
          files++;
          bytes += lstatSync(full, { throwIfNoEntry: false })?.size ?? 0;
        }
      }
      sinceYield += entries.length + 1;
      if (sinceYield >= YIELD_EVERY) {
        sinceYield = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    this.cached = { bytes, files };
    this.lastScanMs = performance.now() - began;
    this.scans++;
    return { bytes, files };
  }

  /** The last numbers, fresh or not (null before the first scan); never scans. */
  peek(): { usage: Usage; stale: boolean } | null {
    return this.cached && { usage: { ...this.cached }, stale: this.stale };
  }

  /** The interval for the next rescan while commands run. */
  watchInterval(): number {
    return Math.max(MIN_WATCH_INTERVAL_MS, Math.ceil(this.lastScanMs * 10));
  }
}
