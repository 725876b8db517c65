// Collects lines [offset, offset+limit) from text fed in chunks, counting every line, cutting long
// lines and stopping at a byte budget. Lines outside the window are counted, never copied.
import { cutLine } from './text.js';

export class LineWindow {
  readonly lines: string[] = [];
  /** Lines completed so far (1-based number of the last one). */
  totalLines = 0;
  linesCut = 0;
  budgetHit = false;
  private partial = '';
  private bytes = 0;

  constructor(
    private readonly offset: number,
    private readonly limit: number,
    private readonly maxBytes: number,
  ) {}

  push(text: string): void {
    const combined = this.partial + text;
    let start = 0;
    let newline: number;
    while ((newline = combined.indexOf('\n', start)) !== -1) {
      this.line(combined, start, newline);
      start = newline + 1;
    }
    this.partial = combined.slice(start);
  }

  end(): void {
    // A last line without a trailing newline is still a line; a trailing newline does not start one.
    if (this.partial.length > 0) this.line(this.partial, 0, this.partial.length);
    this.partial = '';
  }

  private line(source: string, start: number, end: number): void {
    const number = ++this.totalLines;
    if (number < this.offset || this.lines.length >= this.limit || this.budgetHit) return;
    const { text, cut } = cutLine(source.slice(start, end));
    const size = Buffer.byteLength(text) + 1;
    if (this.bytes + size > this.maxBytes && this.lines.length > 0) {
      this.budgetHit = true;
      return;
    }
    if (cut) this.linesCut++;
    this.bytes += size;
    this.lines.push(text);
  }
}
