// Finds the called tool; an unknown name gets 404 with the closest known names as a suggestion.
import { toolgateError } from '../lib/errors.js';
import type { ToolRegistry } from '../contract/registry.js';
import type { Resolver } from '../contract/call.js';
import { editDistance } from '../lib/edit-distance.js';

export function closestNames(name: string, candidates: string[], max = 3): string[] {
  return candidates
    .map((candidate) => ({ candidate, distance: editDistance(name, candidate) }))
    .filter(({ distance, candidate }) => distance <= Math.max(2, candidate.length / 3))
    .sort((a, b) => a.distance - b.distance)
    .slice(0, max)
    .map(({ candidate }) => candidate);
}

export const resolveTool =
  (registry: ToolRegistry): Resolver =>
  (call, next) => {
    const entry = registry.get(call.request.toolName);
    if (!entry) {
      const close = closestNames(
        call.request.toolName,
        registry.list().map((e) => e.tool.name),
      );
      throw toolgateError('TOOL_NOT_FOUND', `Unknown tool "${String(call.request.toolName).slice(0, 100)}"`, {
        suggestion: close.length
          ? `Did you mean ${close.join(' or ')}?`
          : 'GET /v1/tools lists the available tools.',
      });
    }
    // The same object, from here on typed with its tool: the outer steps (the audit record) see it too.
    return next(Object.assign(call, { entry }));
  };
