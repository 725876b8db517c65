// The language servers toolgate offers and how each starts inside a session runtime: the two that ship
// as npm packages (typescript-language-server with TypeScript, pyright) run on the runtime's own Node.js
// from their package folders, which the runtime mounts read-only at their host paths; gopls,
// rust-analyzer and jdtls run when the runtime's PATH has them (toolchain images provide them). The npm
// ones are optional packages, left out of a production install (packages.ts).
import path from 'node:path';
import type { LanguageId } from '../languages.js';
import type { ServerSpec } from './manager.js';
import { packageDir } from './packages.js';

/** The PATH commands get inside a runtime (runtime/backends/env.ts); /usr is the host's, read-only. */
export const RUNTIME_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** Which server serves a file of each indexed language, and the LSP languageId of those files. */
const SERVED: Readonly<Record<LanguageId, { server: string; languageId: string }>> = {
  typescript: { server: 'typescript', languageId: 'typescript' },
  tsx: { server: 'typescript', languageId: 'typescriptreact' },
  javascript: { server: 'typescript', languageId: 'javascript' },
  python: { server: 'python', languageId: 'python' },
  go: { server: 'go', languageId: 'go' },
  rust: { server: 'rust', languageId: 'rust' },
  java: { server: 'java', languageId: 'java' },
};

/** The server key and languageId for files of an indexed language. */
export const servedBy = (language: LanguageId): { server: string; languageId: string } => SERVED[language];

export interface ServerTable {
  /** The start command of a server in a runtime whose Node.js is at `nodePath`; undefined: none. */
  spec(server: string, nodePath: string): ServerSpec | undefined;
  /** Host folders the runtime must show read-only for the servers to start. */
  readonly readOnlyPaths: readonly string[];
}

const quote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

/** `onPath` says whether a binary is in one of RUNTIME_PATH's folders (the host's, which the runtime sees). */
export function serverTable(onPath: (binary: string) => boolean): ServerTable {
  const tsls = packageDir('typescript-language-server');
  const typescript = packageDir('typescript');
  const pyright = packageDir('pyright');
  const node = (nodePath: string, script: string) => `exec ${quote(nodePath)} ${quote(script)} --stdio`;
  const starts: Record<string, ((nodePath: string) => string) | undefined> = {
    // It prefers the workspace's own node_modules/typescript and falls back to ours, which it finds
    // from its own folder (both mounted side by side).
    typescript:
      tsls && typescript ? (nodePath) => node(nodePath, path.join(tsls, 'lib', 'cli.mjs')) : undefined,
    python: pyright ? (nodePath) => node(nodePath, path.join(pyright, 'langserver.index.js')) : undefined,
    go: onPath('gopls') ? () => 'exec gopls' : undefined,
    rust: onPath('rust-analyzer') ? () => 'exec rust-analyzer' : undefined,
    java: onPath('jdtls') ? () => 'exec jdtls' : undefined,
  };
  return {
    spec(server, nodePath) {
      const start = starts[server];
      if (!start) return undefined;
      const languageId = Object.values(SERVED).find((served) => served.server === server)!.languageId;
      // HOME is the sandbox's private /tmp: servers keep their caches there, never in the workspace.
      return { languageId, command: start(nodePath), env: { PATH: RUNTIME_PATH.join(':'), HOME: '/tmp' } };
    },
    readOnlyPaths: [tsls, typescript, pyright].filter((dir): dir is string => dir !== undefined),
  };
}
