// A tool call's cancellation (timeout, client gone, shutdown) without an AbortSignal per call: most calls
// end without being cancelled and without anything asking for a signal, and an AbortController is an
// EventTarget whose construction and listener bookkeeping were a measurable part of a call's cost. The
// listeners here are a plain Set; the AbortSignal is made only when something asks for one.

/**
 * What may cancel work: an AbortSignal, or a Cancellation; the members both have. Code that only needs
 * to know whether, and to be told when, takes this, so either can be passed.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export class Cancellation implements CancelSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Set<() => void> | undefined;
  private controller: AbortController | undefined;

  /** Whether `signal` was asked for yet. */
  get hasSignal(): boolean {
    return this.controller !== undefined;
  }

  /** An AbortSignal that follows this cancellation (made on first use, already aborted if it is). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Aborts once (later calls do nothing); each listener is called once, in the order it was added. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = undefined;
    this.controller?.abort(reason);
    if (listeners) for (const listener of listeners) listener();
  }

  /** Like AbortSignal's: a listener added after the abort is never called (check `aborted` first). */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) (this.listeners ??= new Set()).add(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.listeners?.delete(listener);
  }
}
