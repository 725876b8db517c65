// One open terminal inside the runtime: its program on a PTY, the output no call has read yet (the
// newest keepBytes of it), the screen the emulator keeps, and the wait of a call for output or exit.
import { StringDecoder } from 'node:string_decoder';
import type { TerminalInfo, TerminalRead, TerminalState } from '../../ops/terminals.js';
import { plainText } from './ansi.js';
import type { PtyProcess } from './pty-process.js';
import { Screen } from './screen.js';

export class Terminal {
  private unread: Buffer[] = [];
  private unreadBytes = 0;
  private dropped = 0;
  private readonly decoder = new StringDecoder('utf8');
  private readonly screen: Screen;
  private exit: { code: number | null } | undefined;
  private readonly exited: Promise<void>;
  readonly startedAt = new Date();
  lastUsedAt = Date.now();
  /** Resolves the wait of the call in progress early (exit). */
  private wake: (() => void) | undefined;

  constructor(
    readonly id: string,
    readonly command: string,
    readonly pty: PtyProcess,
    private rows: number,
    private cols: number,
    private readonly keepBytes: number,
    /** Called once the program exited and its output is drained. */
    onExit: () => void,
  ) {
    this.screen = new Screen(rows, cols);
    pty.pid.then(
      (pid) => (this.programPid = pid),
      () => undefined,
    );
    const { child } = pty;
    child.stdout!.on('data', (chunk: Buffer) => this.take(chunk));
    child.stderr!.on('data', (chunk: Buffer) => this.take(chunk));
    this.exited = new Promise<void>((resolve) => {
      let code: number | null = null;
      child.once('exit', (exitCode) => (code = exitCode));
      child.once('close', () => {
        this.exit = { code };
        this.wake?.();
        onExit();
        resolve();
      });
    });
  }

  private programPid = 0;

  /** The program's pid once its wrapper reported it (the pid of `script` until then). */
  get pid(): number {
    return this.programPid || (this.pty.child.pid ?? 0);
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  private take(chunk: Buffer): void {
    this.screen.feed(chunk);
    this.unread.push(chunk);
    this.unreadBytes += chunk.length;
    while (this.unreadBytes > this.keepBytes && this.unread.length > 1) {
      const first = this.unread.shift()!;
      this.unreadBytes -= first.length;
      this.dropped += first.length;
    }
  }

  write(bytes: Uint8Array): void {
    this.lastUsedAt = Date.now();
    if (bytes.length > 0) this.pty.write(bytes);
  }

  /** Waits up to read.yieldMs (less if the program exits), then takes the unread output. */
  async read(read: TerminalRead, signal: AbortSignal): Promise<TerminalState> {
    this.lastUsedAt = Date.now();
    if (this.running && read.yieldMs > 0) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          this.wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, read.yieldMs);
        this.wake = done;
        signal.addEventListener('abort', done, { once: true });
      });
    }
    // After an exit, the last bytes may still be on their way through the pipes.
    if (!this.running) await this.exited;
    let bytes = Buffer.concat(this.unread);
    let dropped = this.dropped;
    if (bytes.length > read.maxOutputBytes) {
      dropped += bytes.length - read.maxOutputBytes;
      bytes = bytes.subarray(bytes.length - read.maxOutputBytes);
    }
    this.unread = [];
    this.unreadBytes = 0;
    this.dropped = 0;
    const rendered = read.screen ? await this.screen.render() : undefined;
    this.lastUsedAt = Date.now();
    return {
      id: this.id,
      pid: this.pid,
      running: this.running,
      exitCode: this.exit?.code ?? null,
      output: plainText(this.decoder.write(bytes)),
      droppedBytes: dropped,
      ...(rendered ? { screen: rendered.lines, cursor: rendered.cursor } : {}),
      rows: this.rows,
      cols: this.cols,
    };
  }

  async resize(rows: number, cols: number): Promise<void> {
    await this.pty.resize(rows, cols);
    this.screen.resize(rows, cols);
    this.rows = rows;
    this.cols = cols;
    this.lastUsedAt = Date.now();
  }

  /** What terminal_list shows; with the screen rendered (nothing read, the terminal not marked used). */
  async info(withScreen = false): Promise<TerminalInfo> {
    const rendered = withScreen ? await this.screen.render() : undefined;
    return {
      id: this.id,
      command: this.command,
      pid: this.pid,
      rows: this.rows,
      cols: this.cols,
      startedAt: this.startedAt.toISOString(),
      lastUsedAt: new Date(this.lastUsedAt).toISOString(),
      unreadBytes: this.unreadBytes,
      running: this.running,
      exitCode: this.exit?.code ?? null,
      ...(rendered ? { screen: rendered.lines, cursor: rendered.cursor } : {}),
    };
  }

  /** Ends the program and waits for it (at most a second or so: the kill ends in SIGKILL). */
  async close(): Promise<number | null> {
    if (this.running) this.pty.kill();
    await this.exited;
    this.screen.dispose();
    return this.exit?.code ?? null;
  }
}
