// What each turn (one batch, or the calls a client marks with one X-Toolgate-Turn) has already called:
// per scope, the calls by tool and canonical input. In memory, bounded in scopes and calls per scope, and
// forgotten after a quiet spell: a turn is seconds to minutes of one agent's step, not history.
import type { RunResult } from '../../contract/call.js';

export interface TurnCall {
  callId: string;
  /** A read-only call's result, shared with its duplicates; undefined for side-effecting calls. */
  result?: Promise<RunResult>;
}

interface Scope {
  calls: Map<string, TurnCall>;
  lastUsed: number;
}

/** The memory's key of one session's turn. */
export const turnScope = (sessionId: string, turn: string): string => `${sessionId}\0${turn}`;

const MAX_SCOPES = 10_000;
const MAX_CALLS_PER_SCOPE = 1_000;

export class TurnMemory {
  private readonly scopes = new Map<string, Scope>();

  constructor(private readonly ttlMs: number) {}

  private scope(key: string, now: number): Scope {
    let scope = this.scopes.get(key);
    if (scope && now - scope.lastUsed > this.ttlMs) scope = undefined;
    if (!scope) scope = { calls: new Map(), lastUsed: now };
    scope.lastUsed = now;
    // Re-inserted, so the map's order is least recently used first.
    this.scopes.delete(key);
    this.scopes.set(key, scope);
    for (const [oldest, old] of this.scopes) {
      if (this.scopes.size <= MAX_SCOPES && now - old.lastUsed <= this.ttlMs) break;
      this.scopes.delete(oldest);
    }
    return scope;
  }

  /** The earlier identical call of this scope, if any. */
  find(scopeKey: string, callKey: string, now = Date.now()): TurnCall | undefined {
    return this.scope(scopeKey, now).calls.get(callKey);
  }

  remember(scopeKey: string, callKey: string, call: TurnCall, now = Date.now()): void {
    const { calls } = this.scope(scopeKey, now);
    if (calls.size < MAX_CALLS_PER_SCOPE) calls.set(callKey, call);
  }

  forget(scopeKey: string, callKey: string, callId: string): void {
    const calls = this.scopes.get(scopeKey)?.calls;
    if (calls?.get(callKey)?.callId === callId) calls.delete(callKey);
  }

  /** A change was made in the scope: earlier reads may no longer hold, so they are not reused. */
  forgetReads(scopeKey: string): void {
    const calls = this.scopes.get(scopeKey)?.calls;
    if (!calls) return;
    for (const [key, call] of calls) if (call.result) calls.delete(key);
  }

  /** Ends a scope at once (a batch that has finished). */
  end(scopeKey: string): void {
    this.scopes.delete(scopeKey);
  }
}
