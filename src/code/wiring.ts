// The code subsystem's wiring, in the two steps the start order asks for: which language servers this
// host has (their packages are shown read-only to every runtime, so before the runtimes exist), then the
// code index and the language-server manager, each start and exit an audit row. src/services.ts composes
// both.
import type { CpuPool } from '../cpu/cpu-pool.js';
import type { Config } from '../config.js';
import { newCallId } from '../lib/call-id.js';
import type { Lifecycle } from '../lib/lifecycle.js';
import { effectiveLimits } from '../runtime/runner/limits.js';
import type { AuditStore } from '../store/audit.js';
import { CodeIndex } from './code-index.js';
import type { LspService } from './lsp/answers.js';
import { LspManager } from './lsp/manager.js';
import { serverTable, type ServerTable } from './lsp/servers.js';

/**
 * The language servers the runtimes can start (undefined when they are off): they run in the session
 * runtime like commands; `onPath` says which binaries the runtime's PATH has (the runtime's wiring looks:
 * this folder never touches the file system).
 */
export function findLanguageServers(
  lsp: Config['lsp'],
  onPath: (binary: string) => boolean,
): ServerTable | undefined {
  return lsp.enabled ? serverTable(onPath) : undefined;
}

export interface CodeParts {
  readonly codeIndex: CodeIndex;
  readonly lsp: LspService | undefined;
  readonly lifecycles: { readonly languageServers: Lifecycle; readonly codeIndex: Lifecycle };
}

export function wireCode(
  lspConfig: Config['lsp'],
  servers: ServerTable | undefined,
  audit: AuditStore,
  /** The CPU pool, where the code index parses large files (never on the service's thread). */
  cpu: CpuPool,
): CodeParts {
  const lsp = servers && {
    manager: new LspManager({
      idleMs: lspConfig.idleSeconds * 1000,
      startBudgetMs: lspConfig.startSeconds * 1000,
      // A command's limits, the longest CPU time of all: a server lives as long as it is used.
      limits: effectiveLimits(600_000),
      root: (runtime) => runtime.commandRoot,
      spec: (server, runtime) => servers.spec(server, runtime.nodePath),
      // One audit row per server start, failed start and exit, on the session's log (not counted as calls).
      onServer: ({ sessionId, language, event, durationMs, detail }) =>
        audit.record({
          callId: newCallId(),
          ts: Date.now(),
          sessionId,
          tool: `language_server:${language}`,
          category: 'code',
          status: event === 'start failed' ? 'error' : 'success',
          errorCode: event === 'start failed' ? 'TOOL_FAILED' : null,
          httpStatus: event === 'start failed' ? 422 : 200,
          durationMs,
          bytesIn: 0,
          bytesOut: 0,
          caller: 'toolgate',
          entryPoint: 'admin',
          inputSummary: JSON.stringify({ language, event, ...(detail ? { detail } : {}) }),
        }),
    }),
    budgetMs: lspConfig.budgetMs,
  };
  const codeIndex = new CodeIndex({ cpu });
  return {
    codeIndex,
    lsp,
    lifecycles: {
      // Language servers are processes of the runtime: stopped politely before it.
      languageServers: {
        name: 'language-servers',
        forgetSession: (id) => lsp?.manager.forget(id),
        close: () => lsp?.manager.close(),
      },
      codeIndex: {
        name: 'code-index',
        forgetSession: (id) => codeIndex.forget(id),
        close: () => codeIndex.close(),
      },
    },
  };
}
