// Every egress connection of every session while it lasts: its bytes each way, the session's total
// against its quota (at it, all of the session's connections are closed and new ones refused), and
// one record per connection when it ends, handed to the sink (audit row, event, metrics). Bytes are
// counted as they cross, exactly: a copy asks how many of a chunk may cross (`take`) and sends that
// many, so the last connection to reach the quota delivers its last byte and no more, and its record
// says what was sent, not what was read.
export type Via = 'connect' | 'http' | 'web_fetch';

export interface ConnectionRecord {
  readonly sessionId: string;
  readonly host: string;
  readonly port: number;
  /** The address connected to (absent when refused before resolution). */
  readonly address?: string;
  readonly via: Via;
  readonly decision: 'allowed' | 'denied';
  /** Why it was refused, or why an allowed connection was cut (the quota). */
  readonly reason?: string;
  readonly bytesUp: number;
  readonly bytesDown: number;
  readonly startedAt: number;
  readonly durationMs: number;
}

export type ConnectionSink = (record: ConnectionRecord) => void;

export interface Connection {
  /**
   * Bytes about to be sent one way (up: to the server, down: to the session): how many of them may be
   * (all without a quota, fewer at its end), counted as sent. The caller sends exactly that many. Once
   * the quota is used up, every connection of the session is closed, after the current turn (so what
   * was granted is written first).
   */
  take(direction: 'up' | 'down', bytes: number): number;
  /**
   * Bytes that crossed already (read by the kernel before anyone could ask: web_fetch's socket, a
   * splice forwarder's report): counted whole. False once the session's quota is used up.
   */
  count(direction: 'up' | 'down', bytes: number): boolean;
  /** The connection's end: recorded once, whatever ends it. */
  end(cut?: string): void;
}

/** How a connection is closed: `quota` lets what was granted be written first, `gone` is at once. */
export type CloseReason = 'quota' | 'gone';

export class Connections {
  private readonly used = new Map<string, number>();
  private readonly live = new Map<string, Set<(why: CloseReason) => void>>();

  constructor(
    private readonly quotaBytes: number,
    private readonly sink: ConnectionSink,
  ) {}

  /** Why the session may open no more connections, if so. */
  refusal(sessionId: string): string | undefined {
    if (this.quotaBytes > 0 && (this.used.get(sessionId) ?? 0) >= this.quotaBytes) {
      return `the session's egress quota of ${this.quotaBytes} bytes is used up`;
    }
    return undefined;
  }

  /** Bytes the session may still move (its quota less what it used); undefined: no quota. */
  allowance(sessionId: string): number | undefined {
    if (this.quotaBytes === 0) return undefined;
    return Math.max(0, this.quotaBytes - (this.used.get(sessionId) ?? 0));
  }

  /** A refused connection: recorded at once. */
  denied(base: { sessionId: string; host: string; port: number; via: Via }, reason: string): void {
    this.sink({
      ...base,
      decision: 'denied',
      reason,
      bytesUp: 0,
      bytesDown: 0,
      startedAt: Date.now(),
      durationMs: 0,
    });
  }

  /**
   * An allowed connection; `close` closes it when the session's quota runs out (`quota`: what was
   * granted is still written, then it closes) or the session goes (`gone`: at once).
   */
  open(
    base: { sessionId: string; host: string; port: number; address: string; via: Via },
    close: (why: CloseReason) => void,
  ): Connection {
    const startedAt = Date.now();
    const began = performance.now();
    let up = 0;
    let down = 0;
    let ended = false;
    let cut: string | undefined;
    const { sessionId } = base;
    const closers = this.live.get(sessionId) ?? new Set<(why: CloseReason) => void>();
    this.live.set(sessionId, closers);
    const closer = (why: CloseReason) => {
      cut ??= this.refusal(sessionId);
      close(why);
    };
    closers.add(closer);
    const add = (direction: 'up' | 'down', bytes: number) => {
      if (direction === 'up') up += bytes;
      else down += bytes;
      const total = (this.used.get(sessionId) ?? 0) + bytes;
      this.used.set(sessionId, total);
      if (this.quotaBytes > 0 && total >= this.quotaBytes) {
        // Every connection of the session goes, this one too: after this turn, so the bytes granted
        // now are written before the sockets close.
        queueMicrotask(() => {
          for (const other of [...(this.live.get(sessionId) ?? [])]) other('quota');
        });
        return false;
      }
      return true;
    };
    return {
      take: (direction, bytes) => {
        const left = this.allowance(sessionId);
        const granted = left === undefined ? bytes : Math.min(bytes, left);
        if (bytes > 0) add(direction, granted);
        return granted;
      },
      count: add,
      end: (reason) => {
        if (ended) return;
        ended = true;
        closers.delete(closer);
        if (closers.size === 0) this.live.delete(sessionId);
        this.sink({
          ...base,
          decision: 'allowed',
          ...((reason ?? cut) !== undefined ? { reason: reason ?? cut } : {}),
          bytesUp: up,
          bytesDown: down,
          startedAt,
          durationMs: performance.now() - began,
        });
      },
    };
  }

  /** Egress bytes the session has moved (since the service started). */
  bytesUsed(sessionId: string): number {
    return this.used.get(sessionId) ?? 0;
  }

  /** The session is gone: its connections are closed and its count forgotten. */
  forget(sessionId: string): void {
    for (const close of [...(this.live.get(sessionId) ?? [])]) close('gone');
    this.live.delete(sessionId);
    this.used.delete(sessionId);
  }
}
