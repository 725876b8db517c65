// The full toolgate declaration of a tool: JSON Schemas, capabilities, permissions, examples.
import type { RegisteredTool } from '../contract/registry.js';

export function toolgateDeclaration(entry: RegisteredTool) {
  const { tool } = entry;
  return {
    name: tool.name,
    category: tool.category,
    description: tool.description,
    version: tool.version,
    tags: tool.tags,
    capabilities: tool.capabilities,
    permissions: [...entry.permissions],
    inputSchema: tool.input as unknown as Record<string, unknown>,
    outputSchema: tool.output as unknown as Record<string, unknown>,
    examples: tool.examples ?? [],
    source: entry.source,
  };
}
