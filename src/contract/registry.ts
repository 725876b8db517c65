// The set of tools of one app: built-ins plus plugins, each name once, with compiled input validators.
// Tool folders may be replaced or removed while the service runs; listeners hear of it (MCP list_changed).
import type { Permission } from '../config.js';
import { isToolDefinition, requiredPermissions, TOOL_NAME_PATTERN, type AnyTool } from './tool.js';
import { compileValidator, type InputValidator } from './validation.js';

export interface RegisteredTool {
  readonly tool: AnyTool;
  readonly validator: InputValidator;
  readonly permissions: readonly Permission[];
  /** Where it came from: "builtin" or the plugin file name. */
  readonly source: string;
}

export class ToolRegistry {
  private readonly tools = new Map<string, RegisteredTool>();
  private readonly listeners = new Set<() => void>();

  add(tool: unknown, source: string): void {
    const entry = this.entryOf(tool, source);
    const existing = this.tools.get(entry.tool.name);
    if (existing)
      throw new Error(`${source}: tool "${entry.tool.name}" is already defined by ${existing.source}`);
    this.tools.set(entry.tool.name, entry);
  }

  /**
   * Adds a tool, or replaces the one of that name from the same source (a tool folder loaded again while
   * the service runs). Calls in flight keep the entry they resolved; new calls get this one.
   */
  replace(tool: unknown, source: string): void {
    const entry = this.entryOf(tool, source);
    const existing = this.tools.get(entry.tool.name);
    if (existing && existing.source !== source) {
      throw new Error(`${source}: tool "${entry.tool.name}" is already defined by ${existing.source}`);
    }
    this.tools.set(entry.tool.name, entry);
    this.changed();
  }

  /** Removes a tool (its folder is gone); true when there was one. */
  remove(name: string): boolean {
    const removed = this.tools.delete(name);
    if (removed) this.changed();
    return removed;
  }

  /** Calls `listener` after every replace or remove; returns the function that unsubscribes it. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  list(): RegisteredTool[] {
    return [...this.tools.values()];
  }

  categories(): string[] {
    return [...new Set(this.list().map((entry) => entry.tool.category))].sort();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  private entryOf(tool: unknown, source: string): RegisteredTool {
    if (!isToolDefinition(tool)) throw new Error(`${source}: not a defineTool(...) result`);
    if (!TOOL_NAME_PATTERN.test(tool.name)) {
      throw new Error(`${source}: tool name "${tool.name}" must be snake_case (${TOOL_NAME_PATTERN})`);
    }
    if (!TOOL_NAME_PATTERN.test(tool.category)) {
      throw new Error(`${source}: category "${tool.category}" of ${tool.name} must be snake_case`);
    }
    if (typeof tool.execute !== 'function')
      throw new Error(`${source}: ${tool.name} has no execute function`);
    return {
      tool,
      validator: compileValidator(tool),
      permissions: requiredPermissions(tool.capabilities),
      source,
    };
  }
}
