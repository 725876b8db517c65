// Every step of the pipeline, in the order a call meets them: the one place that order is written, as
// data (the way Fastify's lib/hooks.js lists its lifecycle). Each entry names its step (the span
// `step <name>`) and builds its middleware from the pipeline's dependencies. After the last step the tool
// runs (run.ts). Adding a policy step is one line here.
//
// Stages: `outer` steps see the call before the tool is known (the audit record wraps everything, so
// even an unknown tool is audited); `resolve` finds the tool and hands the rest a ResolvedCall; `check`
// steps are also what Pipeline.check() runs (nothing spent, nothing recorded); `policy` steps follow;
// `run` steps wrap the tool's run itself.
import type { Config } from '../config.js';
import type { ToolLogger, ToolServices } from '../contract/context.js';
import type { ToolRegistry } from '../contract/registry.js';
import type { AuditStore } from '../store/audit.js';
import { approval } from '../policies/approvals/step.js';
import { duplicate } from '../policies/duplicates/step.js';
import type { TurnMemory } from '../policies/duplicates/turn-memory.js';
import { idempotency } from '../policies/idempotency/step.js';
import { authorize } from '../policies/permissions/step.js';
import { rateLimit } from '../policies/rate-limit/step.js';
import type { ToolSwitches } from '../policies/tool-switches/service.js';
import { enabled } from '../policies/tool-switches/step.js';
import type { EventHub } from './events.js';
import type { PolicyStates } from './policies.js';
import { record } from './record.js';
import { resolveTool } from './resolve-tool.js';
import { retry } from './retry.js';
import { timeout } from './timeout.js';
import type { CallState, Middleware, Resolver } from './types.js';
import { validate } from './validate.js';

/** What the steps are built from. */
export interface StepDeps {
  registry: ToolRegistry;
  services: ToolServices;
  audit: AuditStore;
  events: EventHub;
  /** The operator's enable/disable switches, checked right after the tool is resolved. */
  switches: ToolSwitches;
  /** What each turn already called (duplicate detection). */
  turns: TurnMemory;
  /** The state of the stateful policies (idempotency, rate limits, approvals). */
  policies: PolicyStates;
  logger: ToolLogger;
  shutdownSignal: AbortSignal;
}

export type StepSpec =
  | { readonly name: string; readonly stage: 'outer'; create(deps: StepDeps): Middleware<CallState> }
  | { readonly name: string; readonly stage: 'resolve'; create(deps: StepDeps): Resolver }
  | { readonly name: string; readonly stage: 'check' | 'policy' | 'run'; create(deps: StepDeps): Middleware };

const config = (deps: StepDeps): Config => deps.services.config;

export const PIPELINE_STEPS: readonly StepSpec[] = [
  // One audit row and start/end events for every call, refused ones too; errors become ToolgateErrors.
  { name: 'record', stage: 'outer', create: (d) => record(d.audit, d.events, d.logger) },
  // Unknown tool: 404 with the closest names.
  { name: 'resolve', stage: 'resolve', create: (d) => resolveTool(d.registry) },
  // The operator's switch (403 TOOL_DISABLED).
  { name: 'enabled', stage: 'check', create: (d) => enabled(d.switches) },
  // Input schema, defaults applied.
  { name: 'validate', stage: 'check', create: () => validate() },
  // The session's profile, categories and excluded tools (403).
  { name: 'authorize', stage: 'check', create: () => authorize() },
  // Repeats within a turn, before any policy spends budget on them.
  { name: 'duplicate', stage: 'policy', create: (d) => duplicate(d.turns) },
  // A replay costs no rate budget: before the rate limit.
  {
    name: 'idempotency',
    stage: 'policy',
    create: (d) => idempotency(d.policies.idempotency, config(d).policy.idempotencyTtlSeconds * 1000),
  },
  {
    name: 'rate-limit',
    stage: 'policy',
    create: (d) => rateLimit(config(d).rateLimits, d.policies.rateLimitStore),
  },
  // A parked call has passed the rate limit.
  {
    name: 'approval',
    stage: 'policy',
    create: (d) => approval(d.policies.approvals, config(d).policy.approvalTtlSeconds * 1000),
  },
  // Bounds the run (and the retries inside it); aborts on client disconnect or shutdown.
  {
    name: 'timeout',
    stage: 'run',
    create: (d) => timeout(config(d).limits.toolTimeoutMs, d.shutdownSignal),
  },
  // Transient failures of retryable tools, with backoff, inside the timeout.
  {
    name: 'retry',
    stage: 'run',
    create: (d) => {
      const { policy } = config(d);
      return retry({
        attempts: policy.retryAttempts,
        baseDelayMs: policy.retryBaseDelayMs,
        maxDelayMs: policy.retryMaxDelayMs,
      });
    },
  },
];
