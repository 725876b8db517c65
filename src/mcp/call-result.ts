// A pipeline outcome as an MCP tools/call result: the model-facing text always, the structured data
// when the tool returned an object (what its outputSchema describes), and isError for failures.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { outcomeText } from '../core/batch/result-text.js';
import type { CallOutcome } from '../core/pipeline/types.js';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function callToolResult(outcome: CallOutcome): CallToolResult {
  const content = [{ type: 'text' as const, text: outcomeText(outcome) }];
  if (!outcome.ok) {
    // The error envelope's body travels in _meta so clients that want the code need not parse the text.
    return {
      content,
      isError: true,
      _meta: { 'toolgate/error': outcome.error.toBody(), 'toolgate/callId': outcome.callId },
    };
  }
  return {
    content,
    ...(isPlainObject(outcome.data) ? { structuredContent: outcome.data } : {}),
    _meta: { 'toolgate/callId': outcome.callId },
  };
}
