// Writes frames to the byte stream between the service and a runtime, coalescing every frame written in
// one turn of the event loop into one write: under load many calls (or many answers) are sent in the
// same turn, and one writev costs one system call and one wake-up of the other side instead of one each.
// The flush runs in the check phase (setImmediate), after every I/O callback of the turn has run: a
// nextTick flush would write once per callback, and each request arrives in a callback of its own.
// Order is kept; nothing waits longer than the end of the current turn.
import type { Writable } from 'node:stream';

export class FrameWriter {
  private corked = false;

  constructor(private readonly stream: Writable) {}

  write(frame: Uint8Array): void {
    if (!this.corked) {
      this.corked = true;
      this.stream.cork();
      setImmediate(this.flush);
    }
    this.stream.write(frame);
  }

  private readonly flush = (): void => {
    this.corked = false;
    this.stream.uncork();
  };
}
