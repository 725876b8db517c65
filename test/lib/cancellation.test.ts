// Cancellation (src/lib/cancellation.ts): a call's abort without an AbortSignal per call, and one when asked.
import { describe, expect, it } from 'vitest';
import { Cancellation } from '../../src/lib/cancellation.js';

describe('Cancellation', () => {
  it('aborts once, with the first reason, calling each listener once', () => {
    const cancel = new Cancellation();
    const calls: string[] = [];
    cancel.addEventListener('abort', () => calls.push('a'));
    cancel.addEventListener('abort', () => calls.push('b'));
    cancel.abort('first');
    cancel.abort('second');
    expect(cancel.aborted).toBe(true);
    expect(cancel.reason).toBe('first');
    expect(calls).toEqual(['a', 'b']);
  });

  it('does not call a removed listener, nor one added after the abort', () => {
    const cancel = new Cancellation();
    const calls: string[] = [];
    const removed = () => calls.push('removed');
    cancel.addEventListener('abort', removed);
    cancel.removeEventListener('abort', removed);
    cancel.abort(new Error('gone'));
    cancel.addEventListener('abort', () => calls.push('late'));
    expect(calls).toEqual([]);
  });

  it('makes an AbortSignal only when asked, one that follows it before and after the abort', () => {
    const before = new Cancellation();
    expect(before.hasSignal).toBe(false);
    const signal = before.signal;
    expect(before.hasSignal).toBe(true);
    expect(before.signal).toBe(signal);
    let fired = 0;
    signal.addEventListener('abort', () => fired++);
    const reason = new Error('timeout');
    before.abort(reason);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
    expect(fired).toBe(1);

    const after = new Cancellation();
    after.abort('client gone');
    expect(after.signal.aborted).toBe(true);
    expect(after.signal.reason).toBe('client gone');
  });

  it('stands in for an AbortSignal wherever one is listened to, and the other way round', () => {
    const controller = new AbortController();
    const child = new Cancellation();
    const sources = [controller.signal, child];
    const seen: unknown[] = [];
    for (const source of sources) source.addEventListener('abort', () => seen.push(source.reason));
    controller.abort('a');
    child.abort('b');
    expect(seen).toEqual(['a', 'b']);
  });
});
