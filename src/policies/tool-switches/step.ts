// Refuses calls to a tool, or a tool of a category, that the operator has disabled (403 TOOL_DISABLED).
// Checked on every call, so a switch takes effect for new calls at once, in every session.
import { toolgateError } from '../../lib/errors.js';
import type { ToolSwitches } from './service.js';
import type { Middleware } from '../../contract/call.js';

export const enabled =
  (switches: ToolSwitches): Middleware =>
  (call, next) => {
    const { tool } = call.entry;
    const reason = switches.disabledReason(tool);
    if (reason !== undefined) {
      throw toolgateError('TOOL_DISABLED', reason, {
        suggestion: 'Use another tool, or ask the operator to enable it again (GET /v1/categories).',
        details: { tool: tool.name, category: tool.category },
      });
    }
    return next();
  };
