// @toolgate/client: sessions, typed tool calls, streamed output, files, and the agent loop in the
// vendors' own formats, on the global fetch (no runtime dependency).
export {
  Session,
  Toolgate,
  type SessionInfo,
  type SessionOptions,
  type ToolgateOptions,
  type ToolsOptions,
} from './client.js';
export { ApprovalPending, ToolgateError } from './errors.js';
export { API_VERSION, TOOL_NAMES, type BuiltinToolName, type BuiltinTools } from './tools.js';
export type { RetryPolicy } from './transport.js';
export type { CallOptions, ErrorBody, StreamEvent, ToolFormat, ToolResult } from './types.js';
