// Which tools a session may call: its permissions (from its profile), its category allow-list and its
// excluded tools (by name, or by tag as `tag:<tag>`). Used by the authorize middleware and by the tools listing, so both always agree.
import type { RegisteredTool } from '../../contract/registry.js';
import type { SessionRecord } from '../../store/sessions.js';

/** An excludeTools entry `tag:<tag>` excludes every tool carrying that tag. */
export const EXCLUDED_TAG_PREFIX = 'tag:';

export type Access = { allowed: true } | { allowed: false; reason: string; missingPermission?: string };

export function toolAccess(
  session: Pick<SessionRecord, 'permissions' | 'categories' | 'excludeTools'>,
  entry: RegisteredTool,
): Access {
  const { tool } = entry;
  if (session.excludeTools.includes(tool.name)) {
    return { allowed: false, reason: `Tool ${tool.name} is excluded for this session` };
  }
  const excludedTag = tool.tags.find((tag) => session.excludeTools.includes(`${EXCLUDED_TAG_PREFIX}${tag}`));
  if (excludedTag !== undefined) {
    return { allowed: false, reason: `Tools tagged "${excludedTag}" are excluded for this session` };
  }
  if (session.categories !== null && !session.categories.includes(tool.category)) {
    return { allowed: false, reason: `Category ${tool.category} is not enabled for this session` };
  }
  const missing = entry.permissions.find((permission) => !session.permissions.includes(permission));
  if (missing) {
    return {
      allowed: false,
      reason: `Tool ${tool.name} needs the "${missing}" permission, which this session does not have`,
      missingPermission: missing,
    };
  }
  return { allowed: true };
}
