// The text a model reads for one call's outcome: the tool's own rendering, or an error it can act on
// (code, message, suggestion). Shared by the batch answers and the MCP endpoint.
import type { CallOutcome } from '../contract/call.js';

export function outcomeText(outcome: CallOutcome): string {
  if (outcome.ok) {
    // A duplicate says so first, so the model knows it asked for the same thing twice.
    const hint = outcome.metadata.duplicate === true ? `${String(outcome.metadata.hint)}\n` : '';
    try {
      return hint + outcome.text();
    } catch {
      // A render bug must not lose a result that the tool produced: fall back to its JSON.
      return outcome.dataJson;
    }
  }
  const { error } = outcome;
  const lines = [`Error ${error.code}: ${error.message}`];
  if (error.suggestion) lines.push(`Suggestion: ${error.suggestion}`);
  return lines.join('\n');
}
