// defineTool: the one definition of a tool. Routes, OpenAPI operations, LLM declarations and MCP tools
// are all derived from it; `execute`'s input type comes from the TypeBox schema, never written twice.
import { Type, type Static, type TSchema } from 'typebox';
import type { Permission } from '../config.js';
import type { ToolContext, ToolInitContext } from './context.js';
import type { Capabilities } from '../lib/capabilities.js';

export interface ToolSpec<I extends TSchema, O extends TSchema> {
  /** snake_case, stable. */
  name: string;
  category: string;
  /** What the model reads to decide when and how to call the tool. */
  description: string;
  version?: string;
  tags?: string[];
  capabilities: Capabilities;
  input: I;
  output?: O;
  /** Valid inputs, shown in docs and in validation errors so a model can correct its call. */
  examples?: Static<I>[];
  /** A transient failure (storage or runtime unavailable) may be retried by the pipeline, with backoff. */
  retryable?: boolean;
  /** false: every call waits for an operator's approval, whatever the session's profile says. */
  autoRun?: boolean;
  /** The human-facing title MCP clients show; derived from the name when absent. */
  title?: string;
  /**
   * What a tool from an MCP server said about itself, passed on as it was: its behaviour hints
   * (`annotations`, missing hints meaning the MCP defaults) and its `_meta`.
   */
  mcp?: { annotations?: Record<string, unknown>; meta?: Record<string, unknown> };
  /** Upper bound on run time for this input; the pipeline's timeout uses it instead of the default. */
  timeoutMs?(input: Static<I>): number | undefined;
  execute(input: Static<I>, ctx: ToolContext): Promise<Static<O>>;
  /** Compact text for an LLM (numbered lines, `path:line: text`, a tree…); JSON when absent. */
  render?(data: Static<O>): string;
  init?(ctx: ToolInitContext): Promise<void> | void;
  shutdown?(): Promise<void> | void;
}

export interface ToolDefinition<I extends TSchema = TSchema, O extends TSchema = TSchema> extends ToolSpec<
  I,
  O
> {
  readonly version: string;
  readonly tags: string[];
  readonly output: O;
  readonly [TOOL_BRAND]: true;
}

const TOOL_BRAND = Symbol.for('toolgate.tool');

export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the registry holds tools of every input type
export type AnyTool = ToolDefinition<any, any>;

export function defineTool<I extends TSchema, O extends TSchema>(spec: ToolSpec<I, O>): ToolDefinition<I, O> {
  return {
    ...spec,
    version: spec.version ?? '1.0.0',
    tags: spec.tags ?? [],
    output: spec.output ?? (Type.Unknown() as unknown as O),
    [TOOL_BRAND]: true,
  };
}

/** "read_file" → "Read file": the human-facing title MCP clients show (a run of underscores is one space). */
export const titleOf = (name: string) => {
  const words = name.replace(/_+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

export const isToolDefinition = (value: unknown): value is AnyTool =>
  typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TOOL_BRAND] === true;

/** The permissions a session needs to call the tool. */
export function requiredPermissions(capabilities: Capabilities): Permission[] {
  const needed: Permission[] = ['read'];
  if (capabilities.writesFiles) needed.push('write');
  if (capabilities.executesCommands) needed.push('execute');
  if (capabilities.network) needed.push('network');
  return needed;
}

/** A tool only reads when it neither writes, executes nor touches the network: such calls may run in parallel. */
export const isReadOnly = (capabilities: Capabilities): boolean =>
  !capabilities.writesFiles &&
  !capabilities.executesCommands &&
  !capabilities.network &&
  !capabilities.destructive;
