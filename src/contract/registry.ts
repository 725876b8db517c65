// The set of tools of one app: built-ins plus plugins, each name once, with compiled input validators.
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

  add(tool: unknown, source: string): void {
    if (!isToolDefinition(tool)) throw new Error(`${source}: not a defineTool(...) result`);
    if (!TOOL_NAME_PATTERN.test(tool.name)) {
      throw new Error(`${source}: tool name "${tool.name}" must be snake_case (${TOOL_NAME_PATTERN})`);
    }
    if (!TOOL_NAME_PATTERN.test(tool.category)) {
      throw new Error(`${source}: category "${tool.category}" of ${tool.name} must be snake_case`);
    }
    if (typeof tool.execute !== 'function')
      throw new Error(`${source}: ${tool.name} has no execute function`);
    const existing = this.tools.get(tool.name);
    if (existing) throw new Error(`${source}: tool "${tool.name}" is already defined by ${existing.source}`);
    this.tools.set(tool.name, {
      tool,
      validator: compileValidator(tool),
      permissions: requiredPermissions(tool.capabilities),
      source,
    });
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
}
