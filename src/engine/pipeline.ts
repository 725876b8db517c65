// The one execution path for every tool call, whichever entry point it came from (REST, batch, MCP).
// Policy lives in the middleware list below and nowhere else.
import { newCallId } from '../lib/call-id.js';
import type { Config } from '../config.js';
import type { ToolServices } from '../contract/context.js';
import type { ToolLogger } from '../lib/logger.js';
import type { EventHub } from './events.js';
import type { RegisteredTool, ToolRegistry } from '../contract/registry.js';
import type { AuditStore } from '../store/audit.js';
import { authorize } from '../policies/permissions/step.js';
import { duplicate } from '../policies/duplicates/step.js';
import { enabled } from '../policies/tool-switches/step.js';
import type { TurnMemory } from '../policies/duplicates/turn-memory.js';
import type { ToolSwitches } from '../policies/tool-switches/service.js';
import { asToolgateError, elapsed, record, statusOf } from './record.js';
import { resolveTool } from './resolve-tool.js';
import { retry } from './retry.js';
import { runTool } from './run.js';
import { timeout } from './timeout.js';
import { tracedCall, tracedStep } from './trace.js';
import { inSpan, type Tracing } from '../ops/trace.js';
import type { CallOutcome, CallRequest, CallState, PipelineStep, RunResult } from '../contract/call.js';
import { validate } from './validate.js';

export interface PipelineDeps {
  registry: ToolRegistry;
  services: ToolServices;
  audit: AuditStore;
  events: EventHub;
  /** The operator's enable/disable switches, checked right after the tool is resolved. */
  switches: ToolSwitches;
  /** What each turn already called (duplicate detection). */
  turns: TurnMemory;
  logger: ToolLogger;
  shutdownSignal: AbortSignal;
  /** Policy middleware inserted between authorization and the timeout (rate limits, approvals, …). */
  policies?: PipelineStep[];
  /** Tracing when it is on: each call a span, each step a child span. Undefined costs nothing. */
  tracing?: Tracing;
  /** Called once after every call, success or not (metrics, session last-use); must not throw. */
  onCallEnd?(info: CallEndInfo): void;
}

export interface CallEndInfo {
  callId: string;
  sessionId: string;
  /** The registered tool's name and category; undefined when the name was unknown. */
  tool: string | undefined;
  category: string | undefined;
  /** undefined on success. */
  errorCode: string | undefined;
  durationMs: number;
}

const retryPolicy = ({ policy }: Config) => ({
  attempts: policy.retryAttempts,
  baseDelayMs: policy.retryBaseDelayMs,
  maxDelayMs: policy.retryMaxDelayMs,
});

export class Pipeline {
  private readonly chain: (call: CallState) => Promise<RunResult>;
  private readonly checkChain: (call: CallState) => Promise<RunResult>;
  // Call ids need to be unique, not secret: a random prefix per pipeline and a counter.
  private readonly callIdPrefix = newCallId();
  private callSequence = 0;

  constructor(private readonly deps: PipelineDeps) {
    // The checks a call must pass before any policy spends budget on it; also run alone by check().
    const checks: PipelineStep[] = [
      { name: 'resolve', middleware: resolveTool(deps.registry) },
      { name: 'enabled', middleware: enabled(deps.switches) },
      { name: 'validate', middleware: validate() },
      { name: 'authorize', middleware: authorize() },
    ];
    const steps: PipelineStep[] = [
      { name: 'record', middleware: record(deps.audit, deps.events, deps.logger) },
      ...checks,
      { name: 'duplicate', middleware: duplicate(deps.turns) },
      ...(deps.policies ?? []),
      {
        name: 'timeout',
        middleware: timeout(deps.services.config.limits.toolTimeoutMs, deps.shutdownSignal),
      },
      { name: 'retry', middleware: retry(retryPolicy(deps.services.config)) },
    ];
    const { tracing } = deps;
    const innermost = runTool(deps.services, deps.events, deps.logger);
    // Spans are decided here, once: with tracing off the chain is exactly the plain middleware.
    const run = tracing
      ? (call: CallState) => inSpan(tracing, 'step run', undefined, () => innermost(call))
      : innermost;
    const compose = (list: PipelineStep[], last: (call: CallState) => Promise<RunResult>) =>
      list
        .map(({ name, middleware }) => (tracing ? tracedStep(tracing, name, middleware) : middleware))
        .reduceRight<(call: CallState) => Promise<RunResult>>(
          (next, step) => (call) => step(call, () => next(call)),
          last,
        );
    this.chain = compose(steps, run);
    this.checkChain = compose(checks, async (call) => ({ data: call.input }));
  }

  /**
   * Resolves, validates and authorizes a call without running it, auditing or spending rate budget: the
   * tool and its input with defaults applied, or the ToolgateError the call would get.
   */
  async check(request: CallRequest): Promise<{ entry: RegisteredTool; input: unknown }> {
    const call: CallState = { request, callId: '', startedAt: performance.now(), headers: {} };
    const { data } = await this.checkChain(call);
    return { entry: call.entry!, input: data };
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
      const entry = call.entry!;
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
      tool: call.entry?.tool.name,
      category: call.entry?.tool.category,
      errorCode,
      durationMs: elapsed(call),
    });
  }
}
