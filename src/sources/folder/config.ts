// Tool folders' config: where they are (TOOLGATE_TOOLS_DIR) and the file's `toolFolders` section.
import { Type, type Static } from 'typebox';
import { resolvedPath, type Env } from '../../config/env.js';
import { withDefaults } from '../../config/section.js';

export const ToolFoldersSchema = Type.Object(
  {
    category: Type.String({
      pattern: '^[a-z][a-z0-9_]{0,63}$',
      default: 'custom',
      description: 'The category of a tool folder whose definition names none (the SynthDev format)',
    }),
  },
  { additionalProperties: false },
);
export type ToolFoldersConfig = Static<typeof ToolFoldersSchema>;

/** TOOLGATE_TOOLS_DIR (tool folders run inside the session runtime's sandbox) and the file's section. */
export function toolFolderConfig(env: Env, file: Partial<ToolFoldersConfig> | undefined) {
  return {
    toolsDir: resolvedPath(env.TOOLGATE_TOOLS_DIR),
    toolFolders: withDefaults(ToolFoldersSchema, file),
  };
}
