// Live enable/disable of tools and categories: the operator's switches, persisted in the database and held
// in memory so the pipeline's check is a set lookup. Listeners (the MCP endpoint) hear about every change.
import type { SwitchKind, ToolSwitchStore } from './store.js';

interface Named {
  readonly name: string;
  readonly category: string;
}

export class ToolSwitches {
  private readonly disabled: Record<SwitchKind, Set<string>> = { tool: new Set(), category: new Set() };
  private readonly listeners = new Set<() => void>();

  private constructor(private readonly store: ToolSwitchStore) {}

  /** The switches as stored (read once: every later change goes through set). */
  static async load(store: ToolSwitchStore): Promise<ToolSwitches> {
    const switches = new ToolSwitches(store);
    for (const row of await store.all()) if (!row.enabled) switches.disabled[row.kind].add(row.name);
    return switches;
  }

  isDisabled(kind: SwitchKind, name: string): boolean {
    return this.disabled[kind].has(name);
  }

  /** Why a tool cannot be called now, or undefined when it is enabled. */
  disabledReason(tool: Named): string | undefined {
    if (this.disabled.category.has(tool.category)) {
      return `Category ${tool.category} is disabled by the operator`;
    }
    if (this.disabled.tool.has(tool.name)) return `Tool ${tool.name} is disabled by the operator`;
    return undefined;
  }

  isEnabled(tool: Named): boolean {
    return this.disabledReason(tool) === undefined;
  }

  /** Stores the switch and tells the listeners; returns whether anything changed. */
  async set(kind: SwitchKind, name: string, enabled: boolean): Promise<boolean> {
    await this.store.set(kind, name, enabled);
    // Read after the write: two switches of one name set at once each see the other's outcome.
    const changed = this.disabled[kind].has(name) === enabled;
    if (enabled) this.disabled[kind].delete(name);
    else this.disabled[kind].add(name);
    if (changed) for (const listener of this.listeners) listener();
    return changed;
  }

  /** Calls `listener` after every change; returns the function that unsubscribes it. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
