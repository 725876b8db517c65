// Keeps the first and the last bytes of a stream within a cap: a command's beginning (the command line
// echo, the first error) and its end (the summary, the exit message) are what a reader needs.
import { completePrefixLength, firstCharStart } from './utf8.js';

export class HeadTailCapture {
  private readonly headMax: number;
  private readonly tailMax: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  totalBytes = 0;

  /** @param readAll how the reader gets the omitted middle (said in the cut text) */
  constructor(
    readonly maxBytes: number,
    private readonly readAll = 'read the whole output with job_output',
  ) {
    this.headMax = Math.floor(maxBytes / 2);
    this.tailMax = maxBytes - this.headMax;
  }

  push(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    if (this.headBytes < this.headMax) {
      const take = Math.min(chunk.length, this.headMax - this.headBytes);
      this.head.push(chunk.subarray(0, take));
      this.headBytes += take;
      chunk = chunk.subarray(take);
      if (chunk.length === 0) return;
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    // Drop whole chunks that lie entirely before the last tailMax bytes.
    while (this.tail.length > 1 && this.tailBytes - this.tail[0].length >= this.tailMax) {
      this.tailBytes -= this.tail.shift()!.length;
    }
  }

  get truncated(): boolean {
    return this.totalBytes > this.maxBytes;
  }

  text(): string {
    const head = Buffer.concat(this.head);
    const tail = Buffer.concat(this.tail);
    if (!this.truncated) return Buffer.concat([head, tail]).toString('utf8');
    const tailSlice = tail.subarray(tail.length - this.tailMax);
    const omitted = this.totalBytes - this.headMax - this.tailMax;
    const headText = head.subarray(0, completePrefixLength(head)).toString('utf8');
    const tailText = tailSlice.subarray(firstCharStart(tailSlice)).toString('utf8');
    return `${headText}\n… [${omitted} bytes omitted; ${this.readAll}] …\n${tailText}`;
  }
}
