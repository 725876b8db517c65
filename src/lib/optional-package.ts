// The optional backends' packages (dockerode, the Kubernetes client, pg, the language servers) are in the
// repository and in every `npm ci`, but not in a production install (package.json lists them as
// development dependencies and as optional peer dependencies, so `npm ci --omit=dev` and
// `npm prune --omit=dev` leave them out). Each backend loads its package through here, so choosing one
// whose package the install left out says so in one line, with the command that adds it, instead of
// Node's ERR_MODULE_NOT_FOUND and its stack.

/** An npm package and the range of it that toolgate is tested with (package.json's peerDependencies). */
export interface OptionalPackage {
  readonly name: string;
  readonly range: string;
}

/** The command that adds packages to a production install (their own dependencies come with them). */
export const installCommand = (packages: readonly OptionalPackage[]): string =>
  `npm install --omit=dev --save-prod ${packages.map((p) => `${p.name}@${p.range}`).join(' ')}`;

/** What needs the packages, which ones are missing and how to add them, in one line. */
export function missingPackagesMessage(what: string, packages: readonly OptionalPackage[]): string {
  const names = packages.map((p) => p.name).join(' and ');
  const verb = packages.length === 1 ? 'is' : 'are';
  return (
    `${what} needs ${names}, which ${verb} not installed (a production install leaves the optional ` +
    `backends out); add ${packages.length === 1 ? 'it' : 'them'} with: ${installCommand(packages)}`
  );
}

/** A backend was chosen whose package this install does not have. */
export class MissingPackageError extends Error {
  constructor(
    readonly what: string,
    readonly packages: readonly OptionalPackage[],
  ) {
    super(missingPackagesMessage(what, packages));
    this.name = 'MissingPackageError';
  }
}

/** Whether an import failed because `name` itself is not installed (not something it imports). */
function isMissing(err: unknown, name: string): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  // ESM says "Cannot find package 'x' imported from …"; a require() inside the package would be
  // MODULE_NOT_FOUND naming the package it lacks, a broken install rather than a left-out backend.
  return code === 'ERR_MODULE_NOT_FOUND' && typeof message === 'string' && message.includes(`'${name}'`);
}

/**
 * Runs `load` (a dynamic import of the module that imports `pkg`); a failure because `pkg` is not
 * installed becomes a MissingPackageError naming `what` needs it. Any other failure passes unchanged.
 */
export async function loadOptional<T>(
  what: string,
  pkg: OptionalPackage,
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (isMissing(err, pkg.name)) throw new MissingPackageError(what, [pkg]);
    throw err;
  }
}
