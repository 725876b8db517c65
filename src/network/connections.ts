// Every egress connection of every session while it lasts: its bytes each way, the session's total
// against its quota (past it, all of the session's connections are closed and new ones refused), and
// one record per connection when it ends, handed to the sink (audit row, event, metrics).
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
  /** Counts bytes sent (up) or received (down); false once the session is past its quota. */
  count(direction: 'up' | 'down', bytes: number): boolean;
  /** The connection's end: recorded once, whatever ends it. */
  end(cut?: string): void;
}

export class Connections {
  private readonly used = new Map<string, number>();
  private readonly live = new Map<string, Set<() => void>>();

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

  /** An allowed connection; `destroy` closes it when the session's quota runs out or the session goes. */
  open(
    base: { sessionId: string; host: string; port: number; address: string; via: Via },
    destroy: () => void,
  ): Connection {
    const startedAt = Date.now();
    const began = performance.now();
    let up = 0;
    let down = 0;
    let ended = false;
    let cut: string | undefined;
    const { sessionId } = base;
    const closers = this.live.get(sessionId) ?? new Set<() => void>();
    this.live.set(sessionId, closers);
    const close = () => {
      cut ??= this.refusal(sessionId);
      destroy();
    };
    closers.add(close);
    return {
      count: (direction, bytes) => {
        if (direction === 'up') up += bytes;
        else down += bytes;
        const total = (this.used.get(sessionId) ?? 0) + bytes;
        this.used.set(sessionId, total);
        if (this.quotaBytes > 0 && total >= this.quotaBytes) {
          // Every connection of the session goes, this one too.
          for (const other of [...closers]) other();
          return false;
        }
        return true;
      },
      end: (reason) => {
        if (ended) return;
        ended = true;
        closers.delete(close);
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
    for (const close of [...(this.live.get(sessionId) ?? [])]) close();
    this.live.delete(sessionId);
    this.used.delete(sessionId);
  }
}
