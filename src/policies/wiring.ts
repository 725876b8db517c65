// The policies' wiring: every policy in the pipeline's step list makes its state (a rate limit on Redis
// may refuse to start), with their lifecycles in step order; then the approvals service, which runs an
// approved call through the pipeline. The step list and the pipeline are the engine's (a higher layer):
// they come in as arguments. src/services.ts composes both steps.
import type { CallOutcome, CallRequest } from '../contract/call.js';
import { PolicyStates, type Policy, type PolicyContext } from '../contract/policy.js';
import { outcomeEnvelope } from '../lib/envelope.js';
import type { Lifecycle } from '../lib/lifecycle.js';
import type { AuditStore } from '../store/audit.js';
import type { SessionStore } from '../store/sessions.js';
import { approvalsPolicy } from './approvals/index.js';
import { ApprovalService } from './approvals/service.js';
import { duplicatesPolicy } from './duplicates/index.js';
import type { TurnMemory } from './duplicates/turn-memory.js';
import { rateLimitPolicy } from './rate-limit/index.js';
import type { RateLimitStore } from './rate-limit/store.js';
import { followSwitches } from './tool-switches/follow.js';
import { toolSwitchesPolicy } from './tool-switches/index.js';
import type { ToolSwitches } from './tool-switches/service.js';

export interface PolicyParts {
  readonly states: PolicyStates;
  readonly switches: ToolSwitches;
  readonly turns: TurnMemory;
  readonly rateLimitStore: RateLimitStore;
  /** Reads the shared switch table every `everyMs` (a replica follows the others' switches); stops. */
  followSwitches(everyMs: number): () => void;
  /** The policies' own, in step order: idempotency (sweep), rate-limit (close), approvals (sweep). */
  readonly lifecycles: readonly Lifecycle[];
}

/** The states of `policies` (the pipeline's, in step order). */
export async function wirePolicies(
  policies: readonly Policy<unknown>[],
  ctx: PolicyContext,
): Promise<PolicyParts> {
  const states = await PolicyStates.create(policies, ctx);
  const switches = states.stateOf(toolSwitchesPolicy);
  return {
    states,
    switches,
    turns: states.stateOf(duplicatesPolicy),
    rateLimitStore: states.stateOf(rateLimitPolicy),
    followSwitches: (everyMs) => followSwitches(switches, ctx.db, everyMs, ctx.logger),
    lifecycles: states.lifecycles(),
  };
}

/** Pending approvals; an approved call runs through `execute` (the pipeline). */
export function wireApprovals(
  policies: PolicyParts,
  parts: Pick<PolicyContext, 'audit' | 'events' | 'logger'> & {
    sessions: SessionStore;
    audit: AuditStore;
    execute: (request: CallRequest) => Promise<CallOutcome>;
  },
): ApprovalService {
  return new ApprovalService(
    policies.states.stateOf(approvalsPolicy),
    parts.sessions,
    parts.audit,
    parts.events,
    (request) => parts.execute(request).then(outcomeEnvelope),
    parts.logger,
  );
}
