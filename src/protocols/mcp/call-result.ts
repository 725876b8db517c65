// An MCP tools/call, run through the shared pipeline (entry point "mcp"), and its outcome as an MCP
// result: the model-facing text always, the structured data when the tool returned an object (what its
// outputSchema describes), and isError for failures. The SDK server and the endpoint's fast path both
// run the call with runToolCall and map it with callToolResult, so the two answer alike.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { outcomeText } from '../result-text.js';
import type { Pipeline } from '../../engine/pipeline.js';
import type { CallOutcome } from '../../contract/call.js';
import type { CancelSignal } from '../../lib/cancellation.js';
import type { SessionRecord } from '../../store/sessions.js';
import { isJsonObject } from '../../lib/json.js';

/**
 * Images a tool's data carries inline (`images: [{ mimeType, base64 }]`, e.g. run_code's charts) as MCP
 * image content, after the text, so a client shows them or hands them to its model as images.
 */
function imageContent(data: unknown): Array<{ type: 'image'; data: string; mimeType: string }> {
  const images = isJsonObject(data) ? data.images : undefined;
  if (!Array.isArray(images)) return [];
  return images.flatMap((image: unknown) =>
    isJsonObject(image) && typeof image.base64 === 'string' && typeof image.mimeType === 'string'
      ? [{ type: 'image' as const, data: image.base64, mimeType: image.mimeType }]
      : [],
  );
}

export function callToolResult(outcome: CallOutcome): CallToolResult {
  const content: CallToolResult['content'] = [{ type: 'text' as const, text: outcomeText(outcome) }];
  if (!outcome.ok) {
    // The error envelope's body travels in _meta so clients that want the code need not parse the text.
    return {
      content,
      isError: true,
      _meta: { 'toolgate/error': outcome.error.toBody(), 'toolgate/callId': outcome.callId },
    };
  }
  content.push(...imageContent(outcome.data));
  return {
    content,
    ...(isJsonObject(outcome.data) ? { structuredContent: outcome.data } : {}),
    _meta: { 'toolgate/callId': outcome.callId },
  };
}

/**
 * callToolResult as JSON. structuredContent is the call's data, which the pipeline already serialised
 * (outcome.dataJson, also what the audit counted): it is spliced in, not serialised a second time, as the
 * REST envelope does (a read_file result carries the file's content there).
 */
export function callToolResultJson(outcome: CallOutcome): string {
  const { structuredContent, ...rest } = callToolResult(outcome);
  const json = JSON.stringify(rest);
  if (!outcome.ok || structuredContent === undefined) return json;
  return `${json.slice(0, -1)},"structuredContent":${outcome.dataJson}}`;
}

/** Runs one tools/call through the pipeline; the outcome, to map with callToolResult or callToolResultJson. */
export function runToolCall(
  pipeline: Pipeline,
  session: SessionRecord,
  name: string,
  input: Record<string, unknown>,
  signal: CancelSignal,
  /** The client's X-Toolgate-Turn header, if it sent one. */
  turn?: string,
): Promise<CallOutcome> {
  return pipeline.execute({
    toolName: name,
    input,
    session,
    caller: 'session',
    entryPoint: 'mcp',
    bytesIn: Buffer.byteLength(JSON.stringify(input)),
    signal,
    turn,
  });
}
