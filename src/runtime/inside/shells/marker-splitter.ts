// Finds a command's end marker in one output stream of a persistent shell, across chunk boundaries: the
// bytes before it are the command's output, the bytes after it belong to whatever prints next. A tail
// that could be the start of the marker is held back until the next chunk says whether it is.
export class MarkerSplitter {
  private marker: Buffer | undefined;
  private held = Buffer.alloc(0);

  /** The marker the next command's output ends with. */
  expect(marker: string): void {
    this.marker = Buffer.from(marker);
  }

  push(chunk: Buffer): { before: Buffer; marked: boolean; after: Buffer } {
    const data = this.held.length > 0 ? Buffer.concat([this.held, chunk]) : chunk;
    this.held = Buffer.alloc(0);
    const marker = this.marker;
    if (!marker) return { before: data, marked: false, after: Buffer.alloc(0) };
    const at = data.indexOf(marker);
    if (at >= 0) {
      this.marker = undefined;
      return { before: data.subarray(0, at), marked: true, after: data.subarray(at + marker.length) };
    }
    const keep = partialMarkerLength(data, marker);
    this.held = Buffer.from(data.subarray(data.length - keep));
    return { before: data.subarray(0, data.length - keep), marked: false, after: Buffer.alloc(0) };
  }

  /** What is held back (the stream ended). */
  flush(): Buffer {
    const rest = this.held;
    this.held = Buffer.alloc(0);
    return rest;
  }
}

/** Length of the longest end of `data` that is a beginning of `marker`. */
function partialMarkerLength(data: Buffer, marker: Buffer): number {
  for (let length = Math.min(marker.length - 1, data.length); length > 0; length--) {
    if (data.subarray(data.length - length).equals(marker.subarray(0, length))) return length;
  }
  return 0;
}
