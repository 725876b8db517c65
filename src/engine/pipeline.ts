// The one execution path for every tool call, whichever entry point it came from (REST, batch, MCP).
// The steps and their order are in steps.ts; this file composes them once and runs calls through them.
import { newCallId } from '../lib/call-id.js';
import type { RegisteredTool } from '../contract/registry.js';
import { asToolgateError, elapsed, statusOf } from './record.js';
import { runTool } from './run.js';
import { PIPELINE_STEPS, type StepDeps, type StepSpec } from './steps.js';
import { tracedCall, tracedStep } from './trace.js';
import { inSpan, type Tracing } from '../ops/trace.js';
import {
  isOperatorRead,
  type CallOutcome,
  type CallRequest,
  type CallState,
  type ResolvedCall,
  type RunResult,
} from '../contract/call.js';

export interface PipelineDeps extends StepDeps {
  /** Tracing when it is on: each call a span, each step a child span. Undefined costs nothing. */
  tracing?: Tracing;
  /** Called once after every call, success or not (metrics, session last-use); must not throw. */
  onCallEnd?(info: CallEndInfo): void;
}

export interface CallEndInfo {
  callId: string;
  sessionId: string;
  /** An operator's read of the session, not its agent's call (see EntryPoint). */
  operatorRead: boolean;
  /** The registered tool's name and category; undefined when the name was unknown. */
  tool: string | undefined;
  category: string | undefined;
  /** undefined on success. */
  errorCode: string | undefined;
  durationMs: number;
}

type Chain<C> = (call: C) => Promise<RunResult>;

/**
 * Nests the steps, first outermost, around `last`. Steps before `resolve` see a CallState, the resolve
 * step hands the ones after it a ResolvedCall; a list that puts them otherwise is refused here, at startup.
 * With tracing on each step runs in its `step <name>` span (decided once: off, the chain is the plain steps).
 */
export function composeSteps(
  specs: readonly StepSpec[],
  deps: StepDeps,
  tracing: Tracing | undefined,
  last: Chain<ResolvedCall>,
): Chain<CallState> {
  let inner: Chain<ResolvedCall> = last;
  let outer: Chain<CallState> | undefined;
  for (const spec of [...specs].reverse()) {
    const traced = <T>(fn: () => Promise<T>) =>
      tracing ? inSpan(tracing, `step ${spec.name}`, undefined, fn) : fn();
    if (spec.stage === 'outer') {
      if (!outer)
        throw new Error(`pipeline step "${spec.name}" sees an unresolved call: it must come before resolve`);
      const middleware = tracing ? tracedStep(tracing, spec.name, spec.create(deps)) : spec.create(deps);
      const next: Chain<CallState> = outer;
      outer = (call) => middleware(call, () => next(call));
    } else if (spec.stage === 'resolve') {
      if (outer) throw new Error(`pipeline step "${spec.name}": only one resolve step`);
      const resolver = spec.create(deps);
      const next = inner;
      outer = (call) => traced(() => resolver(call, next));
    } else {
      if (outer)
        throw new Error(`pipeline step "${spec.name}" needs the resolved tool: it must come after resolve`);
      const middleware = tracing ? tracedStep(tracing, spec.name, spec.create(deps)) : spec.create(deps);
      const next = inner;
      inner = (call) => middleware(call, () => next(call));
    }
  }
  if (!outer) throw new Error('the pipeline has no resolve step');
  return outer;
}

/** Every step of the chain has passed, so the tool was resolved: the state says so from here on. */
function resolved(call: CallState): ResolvedCall {
  const { entry } = call;
  if (!entry) throw new Error(`call ${call.callId} passed the pipeline without a resolved tool`);
  return Object.assign(call, { entry });
}

export class Pipeline {
  private readonly chain: Chain<CallState>;
  private readonly checkChain: Chain<CallState>;
  // Call ids need to be unique, not secret: a random prefix per pipeline and a counter.
  private readonly callIdPrefix = newCallId();
  private callSequence = 0;

  constructor(private readonly deps: PipelineDeps) {
    const { tracing } = deps;
    const innermost = runTool(deps.services, deps.events, deps.logger);
    const run: Chain<ResolvedCall> = tracing
      ? (call) => inSpan(tracing, 'step run', undefined, () => innermost(call))
      : innermost;
    this.chain = composeSteps(PIPELINE_STEPS, deps, tracing, run);
    // The checks a call must pass before any policy spends budget on it, run alone by check().
    const checks = PIPELINE_STEPS.filter(({ stage }) => stage === 'resolve' || stage === 'check');
    this.checkChain = composeSteps(checks, deps, tracing, async (call) => ({ data: call.input }));
  }

  /**
   * Resolves, validates and authorizes a call without running it, auditing or spending rate budget: the
   * tool and its input with defaults applied, or the ToolgateError the call would get.
   */
  async check(request: CallRequest): Promise<{ entry: RegisteredTool; input: unknown }> {
    const call: CallState = { request, callId: '', startedAt: performance.now(), headers: {} };
    const { data } = await this.checkChain(call);
    return { entry: resolved(call).entry, input: data };
  }

  execute(request: CallRequest): Promise<CallOutcome> {
    const call: CallState = {
      request,
      callId: request.callId ?? `${this.callIdPrefix}${(this.callSequence++).toString(36)}`,
      startedAt: performance.now(),
      headers: {},
    };
    const { tracing } = this.deps;
    return tracing ? tracedCall(tracing, call, statusOf, () => this.run(call)) : this.run(call);
  }

  private async run(call: CallState): Promise<CallOutcome> {
    const { request } = call;
    try {
      const result = await this.chain(call);
      const { entry } = resolved(call);
      const dataJson = result.dataJson ?? JSON.stringify(result.data) ?? 'null';
      this.callEnded(call, undefined);
      return {
        ok: true,
        callId: call.callId,
        data: result.data,
        dataJson,
        headers: call.headers,
        metadata: {
          executionTimeMs: elapsed(call),
          tool: entry.tool.name,
          category: entry.tool.category,
          version: entry.tool.version,
          sessionId: request.session.id,
          ...result.extraMetadata,
        },
        text: () => (entry.tool.render ? entry.tool.render(result.data) : dataJson),
      };
    } catch (err) {
      const error = asToolgateError(err, this.deps.logger, { callId: call.callId });
      this.callEnded(call, error.code);
      return {
        ok: false,
        callId: call.callId,
        tool: request.toolName,
        error,
        headers: call.headers,
      };
    }
  }

  private callEnded(call: CallState, errorCode: string | undefined): void {
    this.deps.onCallEnd?.({
      callId: call.callId,
      sessionId: call.request.session.id,
      operatorRead: isOperatorRead(call.request),
      tool: call.entry?.tool.name,
      category: call.entry?.tool.category,
      errorCode,
      durationMs: elapsed(call),
    });
  }
}
