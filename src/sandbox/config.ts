// The workspaces' config: the directory of workspace templates (TOOLGATE_TEMPLATES_DIR), read-only to us.
import { resolvedPath, type Env } from '../config/env.js';

/** Directory of workspace templates (POST /v1/sessions `template`); undefined: none. */
export function templatesDir(env: Env): string | undefined {
  return resolvedPath(env.TOOLGATE_TEMPLATES_DIR);
}
