// Refuses calls the session's profile, categories or excluded tools do not allow (403 permission_error).
import { toolgateError } from '../../lib/errors.js';
import { toolAccess } from './permissions.js';
import type { Middleware } from '../../contract/call.js';

export const authorize = (): Middleware => (call, next) => {
  const access = toolAccess(call.request.session, call.entry);
  if (!access.allowed) {
    throw toolgateError('PERMISSION_DENIED', access.reason, {
      suggestion: 'Ask the operator for a session whose profile or categories include this tool.',
      details: {
        tool: call.entry.tool.name,
        category: call.entry.tool.category,
        ...(access.missingPermission ? { missingPermission: access.missingPermission } : {}),
      },
    });
  }
  return next();
};
