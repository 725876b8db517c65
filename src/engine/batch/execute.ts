// Runs a parsed batch: every call through the shared pipeline (so each is validated, authorised,
// limited and audited on its own, entry point "batch"), reads concurrently, writes and commands in order.
import type { CancelSignal } from '../../lib/cancellation.js';
import type { Pipeline } from '../pipeline.js';
import { newCallId } from '../../lib/call-id.js';
import type { CallOutcome, CallerKind } from '../../contract/call.js';
import type { ToolRegistry } from '../../contract/registry.js';
import { isReadOnly } from '../../contract/tool.js';
import type { SessionRecord } from '../../store/sessions.js';
import type { BatchCall, BatchResult, ParsedBatch } from './types.js';
import { runScheduled } from './schedule.js';
import { turnScope, type TurnMemory } from '../../policies/duplicates/turn-memory.js';

export interface BatchDeps {
  pipeline: Pipeline;
  registry: ToolRegistry;
  turns: TurnMemory;
}

export interface BatchCaller {
  session: SessionRecord;
  caller: CallerKind;
  /** Fires when the client goes away; running calls are aborted. */
  signal?: CancelSignal;
  /** The caller's turn; without one the batch is its own turn. */
  turn?: string;
}

// An unknown tool only produces an error, so it cannot disturb other calls and need not wait.
const mayOverlap = (registry: ToolRegistry, call: BatchCall): boolean => {
  if (call.argumentsError || call.reply !== undefined) return true;
  const entry = registry.get(call.name);
  return entry === undefined || isReadOnly(entry.tool.capabilities);
};

/** The outcome of a call the wire format answers itself: nothing runs, so nothing is audited. */
function replied(call: BatchCall, sessionId: string): CallOutcome {
  const text = call.reply ?? '';
  const data = { reply: text };
  return {
    ok: true,
    callId: newCallId(),
    data,
    dataJson: JSON.stringify(data),
    metadata: { executionTimeMs: 0, tool: call.name, category: 'none', version: '0', sessionId },
    headers: {},
    text: () => text,
  };
}

export async function executeBatch(
  deps: BatchDeps,
  batch: ParsedBatch,
  caller: BatchCaller,
): Promise<BatchResult[]> {
  // Identical calls of one batch are duplicates of each other (core/pipeline/duplicate.ts).
  const turn = caller.turn ?? `batch:${newCallId()}`;
  const run = async (call: BatchCall): Promise<CallOutcome> => {
    // Unreadable arguments never reach a tool, so there is nothing to validate, authorise or audit.
    if (call.argumentsError) {
      return { ok: false, callId: newCallId(), tool: call.name, error: call.argumentsError, headers: {} };
    }
    if (call.reply !== undefined) return replied(call, caller.session.id);
    const execute = (toolName: string, input: unknown) =>
      deps.pipeline.execute({
        toolName,
        input,
        session: caller.session,
        caller: caller.caller,
        entryPoint: 'batch',
        bytesIn: call.bytesIn,
        signal: caller.signal,
        turn,
        ...(call.wireTool !== undefined ? { wireTool: call.wireTool } : {}),
      });
    const outcome = await execute(call.name, call.arguments);
    const fallback = call.orElse;
    if (outcome.ok || !fallback || !fallback.codes.includes(outcome.error.code)) return outcome;
    return execute(fallback.name, fallback.arguments);
  };
  const outcomes = await runScheduled(
    batch.calls.map((call) => ({ parallel: mayOverlap(deps.registry, call), run: () => run(call) })),
  );
  if (caller.turn === undefined) deps.turns.end(turnScope(caller.session.id, turn));
  return batch.calls.map((call, index) => ({ call, outcome: outcomes[index] }));
}
