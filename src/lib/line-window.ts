// Collects lines [offset, offset+limit) from text fed in chunks, counting every line, cutting long
// lines and stopping at a byte budget. Lines outside the window are counted, never copied.
import { cutLine, MAX_LINE_CHARS } from './text.js';

export class LineWindow {
  readonly lines: string[] = [];
  /** Lines completed so far (1-based number of the last one). */
  totalLines = 0;
  linesCut = 0;
  budgetHit = false;
  private partial = '';
  private bytes = 0;
  /** The window's content when pushWhole took the text as it is (no line split out). */
  private whole: string | undefined;

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

  /**
   * A whole text at once, instead of push and end. When the window takes all of it (from line 1, within
   * the limit and the byte budget, no line to cut), the text is its own content and no line is split
   * out: read_file's common case, where a string and a byte count per line, then the join, cost more
   * of the service's time than the rest of the tool. Otherwise the same as push(text) and end().
   */
  pushWhole(text: string): void {
    if (this.offset === 1 && this.totalLines === 0 && this.partial === '') {
      let count = 0;
      let longest = 0;
      let start = 0;
      let newline: number;
      while ((newline = text.indexOf('\n', start)) !== -1) {
        count++;
        if (newline - start > longest) longest = newline - start;
        start = newline + 1;
      }
      const last = text.length - start;
      if (last > 0) {
        count++;
        if (last > longest) longest = last;
      }
      // Every line's bytes and its newline, as line() counts them: the text's own, plus the newline a
      // last line without one is counted with.
      const bytes = Buffer.byteLength(text) + (last > 0 ? 1 : 0);
      if (count <= this.limit && longest <= MAX_LINE_CHARS && bytes <= this.maxBytes) {
        this.totalLines = count;
        this.bytes = bytes;
        this.whole = last > 0 ? text : text.slice(0, -1);
        return;
      }
    }
    this.push(text);
    this.end();
  }

  /** How many lines the window holds. */
  get lineCount(): number {
    return this.whole !== undefined ? this.totalLines : this.lines.length;
  }

  /** The window's lines joined with \n. */
  get content(): string {
    return this.whole ?? this.lines.join('\n');
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
