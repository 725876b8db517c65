// The folders walks leave alone by name, whatever the .gitignore files say (see docs/search.md). Pure:
// imported by the service (list_directory's defaults) and by the walker inside the runtime.

/**
 * Heavy folders (dependencies, VCS data, build output, caches, virtualenvs): list_directory shows them
 * without entering them, and the walks of the code index and project analysis skip them.
 */
export const DEFAULT_IGNORED_DIRS: readonly string[] = [
  'node_modules',
  '.git',
  '.hg',
  '.svn',
  'dist',
  'build',
  'coverage',
  '.cache',
  '.next',
  '.nuxt',
  '.turbo',
  '__pycache__',
  '.pytest_cache',
  '.mypy_cache',
  '.venv',
  'venv',
  '.tox',
  'target',
  '.gradle',
  '.idea',
];

/** Git's own data: grep and glob never enter it, even when asked for .gitignore'd files. */
export const VCS_DIRS: ReadonlySet<string> = new Set(['.git']);
