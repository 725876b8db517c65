// A job's full output (stdout and stderr interleaved as they arrived) in a file under
// <dataDir>/jobs/<session>/, bounded in size, readable from any byte offset while the job runs and after.
import { closeSync, openSync, writeSync, promises as fs } from 'node:fs';
import { completePrefixLength } from './utf8.js';

export interface LogSlice {
  text: string;
  offset: number;
  nextOffset: number;
}

export class JobLog {
  private fd: number | null;
  bytes = 0;
  /** Set once the cap was reached; the job is then stopped so nothing printed is silently lost. */
  full = false;
  /**
   * Why the log stopped growing early (a full disk, an I/O error): the job keeps running, its output
   * still reaches the caller's head and tail, but the log keeps only what was written before.
   */
  failure: string | null = null;

  constructor(
    readonly file: string,
    readonly maxBytes: number,
  ) {
    try {
      this.fd = openSync(file, 'w', 0o600);
    } catch (err) {
      this.fd = null;
      this.failure = describe(err);
    }
  }

  /** Appends what fits; false when the cap is reached. Synchronous, so `bytes` is always readable. */
  append(chunk: Buffer): boolean {
    if (this.failure !== null) return true;
    if (this.fd === null || this.full) return false;
    const room = this.maxBytes - this.bytes;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    try {
      if (part.length > 0) this.bytes += writeSync(this.fd, part);
    } catch (err) {
      // Called from a stream's data handler: an error thrown here would stop the whole service. A full
      // disk (ENOSPC, EDQUOT), an I/O or permission error only stops this log from growing.
      this.failure = describe(err);
      this.close();
      return true;
    }
    if (chunk.length > room) this.full = true;
    return !this.full;
  }

  close(): void {
    const fd = this.fd;
    this.fd = null;
    if (fd === null) return;
    try {
      closeSync(fd);
    } catch {
      // Nothing left to do with a descriptor that cannot even be closed.
    }
  }

  /** Up to `maxBytes` from `offset`, ending on a character boundary unless the log is complete there. */
  async read(offset: number, maxBytes: number, complete: boolean): Promise<LogSlice> {
    const start = Math.min(offset, this.bytes);
    // At least 4 bytes, so a page always holds one whole character and the cursor moves on.
    const length = Math.min(Math.max(maxBytes, 4), this.bytes - start);
    if (length <= 0) return { text: '', offset: start, nextOffset: start };
    const handle = await fs.open(this.file, 'r');
    try {
      const buf = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buf, 0, length, start);
      const atEnd = start + bytesRead === this.bytes && complete;
      // 0 only when the window is one character the command has not finished writing: read it next time.
      const usable = atEnd ? bytesRead : completePrefixLength(buf.subarray(0, bytesRead));
      return {
        text: buf.subarray(0, usable).toString('utf8'),
        offset: start,
        nextOffset: start + usable,
      };
    } finally {
      await handle.close();
    }
  }

  async remove(): Promise<void> {
    this.close();
    await fs.rm(this.file, { force: true });
  }
}

const describe = (err: unknown): string => {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT'
    ? `the disk is full (${code}): the log stopped here`
    : `the log could not be written (${code ?? 'error'}): it stopped here`;
};
