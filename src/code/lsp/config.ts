// The language servers' config (issue 32): the file's `lsp` section and TOOLGATE_LSP=on|off.
import { Type, type Static } from 'typebox';
import { parseSwitch, type Env } from '../../config/env.js';
import { withDefaults } from '../../config/section.js';

/** Language servers (issue 32): the code tools ask them first, the syntax index answers otherwise. */
export const LspSchema = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'Start language servers for the code tools' }),
    idleSeconds: Type.Number({
      exclusiveMinimum: 0,
      default: 600,
      description: "A session's language server unused this long is stopped",
    }),
    startSeconds: Type.Number({
      exclusiveMinimum: 0,
      default: 60,
      description: 'How long a language server may take to initialize before its start counts as failed',
    }),
    budgetMs: Type.Integer({
      minimum: 1,
      default: 2000,
      description: 'How long a code tool waits for a language server before answering from the syntax index',
    }),
    editBudgetMs: Type.Integer({
      minimum: 1,
      default: 2000,
      description: "How long an edit waits for the language server's diagnostics of the changed files",
    }),
  },
  { additionalProperties: false },
);
export type LspConfig = Static<typeof LspSchema>;

/** The file's section, TOOLGATE_LSP over its `enabled`. */
export function lspConfig(env: Env, file: Partial<LspConfig> | undefined): LspConfig {
  return withDefaults(LspSchema, {
    ...file,
    ...(env.TOOLGATE_LSP ? { enabled: parseSwitch('TOOLGATE_LSP', env.TOOLGATE_LSP) } : {}),
  });
}
