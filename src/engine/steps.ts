// Every step of the pipeline, in the order a call meets them: the one place that order is written, as
// data (the way Fastify's lib/hooks.js lists its lifecycle). Each entry names its step (the span
// `step <name>`) and builds its middleware from the pipeline's dependencies. After the last step the tool
// runs (run.ts). Adding a policy is its folder (an index.ts exporting a definePolicy value) and one
// `policyStep(...)` line here.
//
// Stages: `outer` steps see the call before the tool is known (the audit record wraps everything, so
// even an unknown tool is audited); `resolve` finds the tool and hands the rest a ResolvedCall; `check`
// steps are also what Pipeline.check() runs (nothing spent, nothing recorded); `policy` steps follow;
// `run` steps wrap the tool's run itself.
import type { Config } from '../config.js';
import type { ToolServices } from '../contract/context.js';
import type { ToolLogger } from '../lib/logger.js';
import type { ToolRegistry } from '../contract/registry.js';
import type { AuditStore } from '../store/audit.js';
import { approvalsPolicy } from '../policies/approvals/index.js';
import { duplicatesPolicy } from '../policies/duplicates/index.js';
import { idempotencyPolicy } from '../policies/idempotency/index.js';
import { permissionsPolicy } from '../policies/permissions/index.js';
import { rateLimitPolicy } from '../policies/rate-limit/index.js';
import { toolSwitchesPolicy } from '../policies/tool-switches/index.js';
import type { EventHub } from './events.js';
import type { Policy, PolicyStates } from '../contract/policy.js';
import { record } from './record.js';
import { resolveTool } from './resolve-tool.js';
import { retry } from './retry.js';
import { timeout } from './timeout.js';
import type { CallState, Middleware, Resolver } from '../contract/call.js';
import { validate } from './validate.js';

/** What the steps are built from. */
export interface StepDeps {
  registry: ToolRegistry;
  services: ToolServices;
  audit: AuditStore;
  events: EventHub;
  /** The state each listed policy made at startup. */
  policies: PolicyStates;
  logger: ToolLogger;
  shutdownSignal: AbortSignal;
}

export type StepSpec =
  | { readonly name: string; readonly stage: 'outer'; create(deps: StepDeps): Middleware<CallState> }
  | { readonly name: string; readonly stage: 'resolve'; create(deps: StepDeps): Resolver }
  | {
      readonly name: string;
      readonly stage: 'check' | 'policy' | 'run';
      create(deps: StepDeps): Middleware;
      /** Set for a policy's step: its state is made at startup (see policiesOf). */
      readonly policy?: Policy<unknown>;
    };

/** A policy's step: built from the state the policy made. */
const policyStep = <S>(policy: Policy<S>): StepSpec => ({
  name: policy.step,
  stage: policy.stage,
  policy,
  create: (deps) => deps.policies.middleware(policy),
});

const config = (deps: StepDeps): Config => deps.services.config;

export const PIPELINE_STEPS: readonly StepSpec[] = [
  // One audit row and start/end events for every call, refused ones too; errors become ToolgateErrors.
  { name: 'record', stage: 'outer', create: (d) => record(d.audit, d.events, d.logger) },
  // Unknown tool: 404 with the closest names.
  { name: 'resolve', stage: 'resolve', create: (d) => resolveTool(d.registry) },
  // The operator's switch (403 TOOL_DISABLED).
  policyStep(toolSwitchesPolicy),
  // Input schema, defaults applied.
  { name: 'validate', stage: 'check', create: () => validate() },
  // The session's profile, categories and excluded tools (403).
  policyStep(permissionsPolicy),
  // Repeats within a turn, before any policy spends budget on them.
  policyStep(duplicatesPolicy),
  // A replay costs no rate budget: before the rate limit.
  policyStep(idempotencyPolicy),
  policyStep(rateLimitPolicy),
  // A parked call has passed the rate limit.
  policyStep(approvalsPolicy),
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

/** The policies whose steps are in the list, in list order: the app makes their states at startup. */
export const policiesOf = (steps: readonly StepSpec[]): Policy<unknown>[] =>
  steps.flatMap((step) => ('policy' in step && step.policy ? [step.policy] : []));
