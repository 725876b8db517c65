// The language servers that ship as npm packages (typescript-language-server with TypeScript, pyright) are
// optional packages: every `npm ci` has them, a production install leaves them out. A server whose package
// is not installed serves nothing, and the diagnostics tool says which package and how to add it.
import { createRequire } from 'node:module';
import path from 'node:path';
import { missingPackagesMessage, type OptionalPackage } from '../../lib/optional-package.js';

/** The packages each npm-shipped server needs, as package.json's peerDependencies gives them. */
export const SERVER_PACKAGES: Readonly<
  Record<string, { label: string; packages: readonly OptionalPackage[] }>
> = {
  typescript: {
    label: 'the TypeScript/JavaScript language server',
    packages: [
      { name: 'typescript-language-server', range: '~5.3.0' },
      { name: 'typescript', range: '5.9' },
    ],
  },
  python: { label: 'the Python language server', packages: [{ name: 'pyright', range: '^1.1.414' }] },
};

/** The folder of an installed npm package (found from here, as Node resolves it); undefined: absent. */
export const packageDir = (name: string): string | undefined => {
  try {
    return path.dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));
  } catch {
    return undefined;
  }
};

/** Why a server cannot start for want of its packages, in one line; undefined when they are installed. */
export function missingServerPackages(server: string): string | undefined {
  const needs = SERVER_PACKAGES[server];
  const missing = needs?.packages.filter((pkg) => packageDir(pkg.name) === undefined) ?? [];
  return needs && missing.length ? missingPackagesMessage(needs.label, missing) : undefined;
}
