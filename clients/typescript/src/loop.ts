// The agent loop's glue: a vendor's model output (an SDK object, which is its JSON) → the batch body
// toolgate reads (POST /v1/sessions/{id}/calls, docs/agents.md), and the batch answer → what to append
// to the conversation. Accepted: OpenAI Chat Completions (the completion, the message, or its
// tool_calls), OpenAI Responses (the response or its output items: function_call, custom_tool_call,
// apply_patch_call, shell_call), Anthropic Messages (the message or its content: tool_use blocks, the
// text editor and bash included) and Gemini (the GenerateContentResponse, a candidate or its Content).

type Json = Record<string, unknown>;
export type BatchFormat = 'openai' | 'openai-responses' | 'anthropic' | 'gemini';

const RESPONSES_CALL_ITEMS = new Set(['function_call', 'custom_tool_call', 'apply_patch_call', 'shell_call']);
const ANTHROPIC_BLOCKS = new Set(['tool_use', 'text', 'thinking', 'redacted_thinking', 'server_tool_use']);

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;
const hasCall = (part: unknown) => isObject(part) && 'functionCall' in part;

/** [format, body]: the body is undefined when the output holds no tool call (the loop is done). */
export function batchBody(output: unknown): [BatchFormat, Json | undefined] {
  if (Array.isArray(output)) return listBody(output);
  if (!isObject(output)) throw new TypeError('handle() takes a model output (an SDK object or its JSON)');
  if (Array.isArray(output.choices)) return batchBody((output.choices[0] as Json).message);
  if ('candidates' in output) {
    const candidates = (output.candidates ?? []) as Json[];
    return batchBody(candidates[0]?.content ?? { parts: [] });
  }
  if ('tool_calls' in output) {
    const calls = (output.tool_calls ?? []) as unknown[];
    return ['openai', calls.length ? { tool_calls: calls } : undefined];
  }
  if (Array.isArray(output.output)) {
    const items = (output.output as Json[]).filter((item) => RESPONSES_CALL_ITEMS.has(String(item.type)));
    return ['openai-responses', items.length ? { output: items } : undefined];
  }
  if (Array.isArray(output.parts)) {
    return ['gemini', output.parts.some(hasCall) ? { role: 'model', parts: output.parts } : undefined];
  }
  if (isObject(output.content) && Array.isArray(output.content.parts)) return batchBody(output.content);
  if (Array.isArray(output.content)) return listBody(output.content);
  if ('message' in output && 'finish_reason' in output) return batchBody(output.message);
  if (output.role === 'assistant') return ['openai', undefined];
  throw new TypeError(
    'handle() did not recognise this model output: pass an OpenAI ChatCompletion or message, a Responses ' +
      'response or its output, an Anthropic message or its content, or a Gemini response or Content',
  );
}

function listBody(items: unknown[]): [BatchFormat, Json | undefined] {
  const objects = items.filter(isObject);
  if (objects.some((item) => 'function' in item)) return ['openai', { tool_calls: items }];
  if (objects.some((item) => ANTHROPIC_BLOCKS.has(String(item.type)))) {
    return ['anthropic', objects.some((item) => item.type === 'tool_use') ? { content: items } : undefined];
  }
  if (objects.some(hasCall)) return ['gemini', { role: 'model', parts: items }];
  const calls = objects.filter((item) => RESPONSES_CALL_ITEMS.has(String(item.type)));
  return ['openai-responses', calls.length ? { output: calls } : undefined];
}

/** What goes into the conversation after the model's turn, as a list to push. */
export function toAppend(format: BatchFormat, answer: Json): Json[] {
  if (format === 'openai') return answer.messages as Json[];
  if (format === 'openai-responses') return answer.input as Json[];
  return [answer]; // Anthropic: one user message of tool_result blocks; Gemini: one user Content
}

/** The declarations with the vendor's own built-in tools (by type) in place of the tools they stand for. */
export function withBuiltins(
  listing: { tools: Json[]; builtins?: { tool: Json; mapsTo?: string[] }[] },
  builtins: string[],
) {
  if (builtins.length === 0) return listing.tools;
  const offered = listing.builtins ?? [];
  const chosen = offered.filter((b) => builtins.includes(String(b.tool.type)));
  const missing = builtins.filter((type) => !chosen.some((b) => b.tool.type === type));
  if (missing.length > 0) {
    throw new TypeError(
      `no built-in tool ${missing.join(', ')} in this format (offered: ${offered.map((b) => b.tool.type).join(', ') || 'none'})`,
    );
  }
  const replaced = new Set(chosen.flatMap((b) => b.mapsTo ?? []));
  return [...chosen.map((b) => b.tool), ...listing.tools.filter((tool) => !replaced.has(String(tool.name)))];
}
