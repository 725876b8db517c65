// The tool and category views GET /v1/tools and /v1/categories answer with, and the operator's switches
// (PATCH, src/policies/tool-switches/routes.ts) answer with too: one schema and one builder for each.
import { Type } from 'typebox';
import type { RegisteredTool, ToolRegistry } from '../contract/registry.js';
import type { ToolSwitches } from '../policies/tool-switches/service.js';
import { toolgateDeclaration, ToolgateDeclarationSchema } from '../protocols/toolgate.js';

export const ToolDeclaration = Type.Object({
  ...ToolgateDeclarationSchema.properties,
  enabled: Type.Boolean({ description: 'false when the operator disabled the tool or its category' }),
});

export const EnabledBody = Type.Object(
  { enabled: Type.Boolean({ description: 'false refuses new calls at once, in every session' }) },
  { additionalProperties: false },
);

export const CategoryView = Type.Object({
  name: Type.String(),
  enabled: Type.Boolean({ description: 'false when the operator disabled the category' }),
  tools: Type.Array(Type.String()),
  enabledTools: Type.Array(Type.String({ description: 'The tools that can be called now' })),
});

/** A tool's declaration with its switch. */
export const toolView = (switches: ToolSwitches) => (entry: RegisteredTool) => ({
  ...toolgateDeclaration(entry),
  enabled: switches.isEnabled(entry.tool),
});

/** A category: its switch, its tools and those of them callable now. */
export const categoryView = (registry: ToolRegistry, switches: ToolSwitches) => (name: string) => {
  const tools = registry.list().filter((entry) => entry.tool.category === name);
  return {
    name,
    enabled: !switches.isDisabled('category', name),
    tools: tools.map((entry) => entry.tool.name),
    enabledTools: tools.filter((entry) => switches.isEnabled(entry.tool)).map((entry) => entry.tool.name),
  };
};
