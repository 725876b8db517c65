// Redundancy detection within a turn (one batch, or the calls sharing an X-Toolgate-Turn header): an
// identical read-only call (same tool, same canonical input, no change made in the turn in between) is
// answered from the first one's result, marked duplicate; an identical side-effecting call is refused with 409 DUPLICATE_CALL unless the tool
// is idempotent. Runs after validation (defaults applied) and before the policies spend any budget.
import { canonicalJson } from '../../lib/canonical-json.js';
import { toolgateError } from '../../lib/errors.js';
import { isReadOnly } from '../../contract/tool.js';
import { turnScope, type TurnMemory } from './turn-memory.js';
import type { Middleware, Next, ResolvedCall, RunResult } from '../../contract/call.js';

const TURN_PATTERN = /^[\x21-\x7e]{1,200}$/;

const hint = (callId: string) =>
  `Identical to call ${callId} earlier in this turn: answered from its result without running again.`;

async function answerFromFirst(
  call: ResolvedCall,
  next: Next,
  first: { callId: string; result: Promise<RunResult> },
): Promise<RunResult> {
  const earlier = await first.result.then(
    (result) => result,
    () => undefined,
  );
  // The first call failed: this one runs on its own (the failure may have been passing).
  if (!earlier) return next();
  call.duplicate = true;
  return {
    data: earlier.data,
    dataJson: earlier.dataJson,
    extraMetadata: {
      bytesRead: 0,
      bytesWritten: 0,
      filesAccessed: 0,
      duplicate: true,
      duplicateOf: first.callId,
      hint: hint(first.callId),
    },
  };
}

export const duplicate =
  (turns: TurnMemory): Middleware =>
  (call, next) => {
    const { turn, session } = call.request;
    if (turn === undefined) return next();
    if (!TURN_PATTERN.test(turn)) {
      throw toolgateError('VALIDATION_FAILED', 'X-Toolgate-Turn must be 1-200 visible ASCII characters', {
        details: { errors: [{ field: 'X-Toolgate-Turn', problem: 'is malformed' }] },
      });
    }
    const { tool } = call.entry;
    const scopeKey = turnScope(session.id, turn);
    const callKey = `${tool.name}\0${canonicalJson(call.input)}`;
    const first = turns.find(scopeKey, callKey);

    if (isReadOnly(tool.capabilities)) {
      if (first?.result) return answerFromFirst(call, next, { callId: first.callId, result: first.result });
      const result = next();
      turns.remember(scopeKey, callKey, { callId: call.callId, result });
      return result;
    }
    if (first && tool.capabilities.idempotent !== true) {
      throw toolgateError('DUPLICATE_CALL', `This exact ${tool.name} call was already made in this turn`, {
        suggestion:
          'The change was already made (see the earlier result); send a different call, or start a new turn.',
        details: { duplicateOf: first.callId, tool: tool.name },
      });
    }
    turns.remember(scopeKey, callKey, { callId: call.callId });
    // Reads after a change see the change: an identical read later in the turn runs again.
    turns.forgetReads(scopeKey);
    // A failed change may be tried again in the same turn.
    return next().catch((err: unknown) => {
      turns.forget(scopeKey, callKey, call.callId);
      throw err;
    });
  };
