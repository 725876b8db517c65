// The shape of one tool call as it moves through the pipeline's middleware.
import type { RegisteredTool } from './registry.js';
import type { OutputChunk } from '../lib/output-chunk.js';
import type { SessionRecord } from '../store/sessions.js';
import type { ToolgateError } from '../lib/errors.js';
import type { Cancellation, CancelSignal } from '../lib/cancellation.js';

/**
 * Where a call came in. `operator`: an operator's view of a session's state (GET …/changes and
 * …/checkpoints with the admin key, as the console opens a session), not a call of the session's agent:
 * audited as such, but never counted in the session's stats, rate limits or last use, never parked, and
 * left out of its audit timeline unless asked for.
 */
export type EntryPoint = 'rest' | 'batch' | 'mcp' | 'operator';

/** Whether the call is an operator's read of the session rather than one of its agent's calls. */
export const isOperatorRead = (request: Pick<CallRequest, 'entryPoint'>): boolean =>
  request.entryPoint === 'operator';
export type CallerKind = 'admin' | 'session';

/** What an entry point hands to the pipeline. */
export interface CallRequest {
  toolName: string;
  /** Raw, unvalidated arguments. */
  input: unknown;
  session: SessionRecord;
  caller: CallerKind;
  entryPoint: EntryPoint;
  /** Size of the request body that carried this call. */
  bytesIn: number;
  callId?: string;
  /** Fires when the client goes away (an AbortSignal will do). */
  signal?: CancelSignal;
  onOutput?: (chunk: OutputChunk) => void;
  idempotencyKey?: string;
  /** Set when an operator approved this call: the approval middleware lets it through. */
  approved?: boolean;
  /** The turn this call belongs to (one batch, or the caller's X-Toolgate-Turn): repeats are detected in it. */
  turn?: string;
  /** The vendor's tool the model called, when it is not ours by name (e.g. "openai-responses:shell_call"). */
  wireTool?: string;
}

/** Mutable state of one call, filled in by the middleware as it passes. */
export interface CallState {
  readonly request: CallRequest;
  readonly callId: string;
  readonly startedAt: number;
  entry?: RegisteredTool;
  input?: unknown;
  /** Extra response headers a middleware wants sent (e.g. RateLimit on success). */
  headers: Record<string, string>;
  /** Set by the timeout middleware: aborts on timeout, client disconnect or shutdown. */
  cancel?: Cancellation;
  /** Runs of the tool so far (set by the retry step; audited). */
  attempts?: number;
  /** Answered from an identical earlier call of its batch or turn (set by the duplicate step; audited). */
  duplicate?: boolean;
}

/** The state every step after `resolve` sees: the called tool is known. Made only by the resolve step. */
export interface ResolvedCall extends CallState {
  readonly entry: RegisteredTool;
}

export interface CallMetadata {
  executionTimeMs: number;
  tool: string;
  category: string;
  version: string;
  sessionId: string;
  [key: string]: unknown;
}

export interface CallSuccess {
  ok: true;
  callId: string;
  data: unknown;
  /** `data` serialised once, reused by the REST response and byte counting. */
  dataJson: string;
  metadata: CallMetadata;
  headers: Record<string, string>;
  /** Rendered text for an LLM (tool's render or JSON). */
  text(): string;
}

export interface CallFailure {
  ok: false;
  callId: string;
  error: ToolgateError;
  tool: string;
  headers: Record<string, string>;
}

export type CallOutcome = CallSuccess | CallFailure;

/** The value the innermost step produces; middleware may wrap or replace it, or throw a ToolgateError. */
export interface RunResult {
  data: unknown;
  /** `data` as JSON, filled in once by the record middleware. */
  dataJson?: string;
  extraMetadata?: Record<string, unknown>;
}

export type Next = () => Promise<RunResult>;
/**
 * A step of the pipeline. Steps with nothing to await are plain functions returning `next()` (no promise
 * of their own on the hot path); a synchronous throw reaches the record step like a rejection does.
 * Steps after `resolve` (the default) see a ResolvedCall; the steps before it see a CallState.
 */
export type Middleware<C extends CallState = ResolvedCall> = (call: C, next: Next) => Promise<RunResult>;

/** The resolve step: finds the tool and hands the rest of the chain the call as a ResolvedCall. */
export type Resolver = (
  call: CallState,
  next: (call: ResolvedCall) => Promise<RunResult>,
) => Promise<RunResult>;

/** A middleware with the name it is known by in traces (`step <name>`). */
export interface PipelineStep {
  readonly name: string;
  readonly middleware: Middleware;
}
