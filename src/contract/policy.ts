// A policy of the pipeline as one value, exported by its folder's index.ts: the state it keeps (made once
// per app), the step it adds to the ordered list (engine/steps.ts) and that state's lifecycle. Part of the
// contract: policies implement it, the engine runs it. Adding a policy is its folder and one line in
// engine/steps.ts; the app makes every listed policy's state at startup.
import type { Config } from '../config.js';
import type { ToolLogger } from '../lib/logger.js';
import type { SqlDatabase } from '../store/sql.js';
import type { AuditStore } from '../store/audit.js';
import type { Lifecycle } from '../lib/lifecycle.js';
import type { Middleware } from './call.js';

/** What a policy makes its state from. */
export interface PolicyContext {
  readonly config: Config;
  readonly db: SqlDatabase;
  readonly logger: ToolLogger;
  /** For rows a policy writes outside a call (an approval decided or expired). */
  readonly audit: AuditStore;
  /** The sessions' activity streams, for what a policy decides outside a call (an approval's end). */
  readonly events: ActivityPublisher;
}

/** Publishing on a session's activity stream (the engine's EventHub is one). */
export interface ActivityPublisher {
  watching(sessionId: string): boolean;
  publish(sessionId: string, type: 'error' | 'tool_call_end', data: Record<string, unknown>): void;
}

export interface Policy<S> {
  /** The policy's folder name; names its lifecycle too. */
  readonly name: string;
  /** The name of its step in the ordered list (and of the span `step <step>`). */
  readonly step: string;
  /** `check` steps also run in Pipeline.check() and must spend nothing; `policy` steps come after them. */
  readonly stage: 'check' | 'policy';
  /** Makes the state, once per app (stores, counters, switches); may refuse to start (throw). */
  create(ctx: PolicyContext): S | Promise<S>;
  middleware(state: S, config: Config): Middleware;
  /** What the state forgets, sweeps or closes; none when it holds nothing that needs it. */
  lifecycle?(state: S, ctx: PolicyContext): Omit<Lifecycle, 'name'>;
}

/** Declares a policy; only infers its state type. */
export const definePolicy = <S>(policy: Policy<S>): Policy<S> => policy;

/** The states of an app's policies, made in list order; read back by policy. */
export class PolicyStates {
  private constructor(
    private readonly states: ReadonlyMap<Policy<unknown>, unknown>,
    private readonly ctx: PolicyContext,
  ) {}

  static async create(policies: readonly Policy<unknown>[], ctx: PolicyContext): Promise<PolicyStates> {
    const states = new Map<Policy<unknown>, unknown>();
    for (const policy of policies) states.set(policy, await policy.create(ctx));
    return new PolicyStates(states, ctx);
  }

  /** The state `policy` made (it must be one of the policies this was created with). */
  stateOf<S>(policy: Policy<S>): S {
    if (!this.states.has(policy)) throw new Error(`policy ${policy.name} is not in the step list`);
    // The map holds each policy's own state, put there by create() above.
    return this.states.get(policy) as S;
  }

  middleware<S>(policy: Policy<S>): Middleware {
    return policy.middleware(this.stateOf(policy), this.ctx.config);
  }

  /** The lifecycles the policies declare, in list order. */
  lifecycles(): Lifecycle[] {
    return [...this.states].flatMap(([policy, state]) =>
      policy.lifecycle ? [{ name: policy.name, ...policy.lifecycle(state, this.ctx) }] : [],
    );
  }
}
