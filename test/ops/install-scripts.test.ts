// npm ci's install scripts, decided: every package of the lock file that has one is allowed or denied in
// package.json's allowScripts (npm 11 warns about the rest, npm 12 blocks them), and the install-time
// analytics (@scarf/scarf, through Spectral) stay off. npm 11 still runs a denied script, so the opt-out
// that @scarf/scarf itself reads from the root package.json (scarfSettings.enabled = false) is what keeps
// it silent there.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './child-server.js';

const readJson = (file: string) => JSON.parse(readFileSync(path.join(REPO_ROOT, file), 'utf8')) as unknown;
const pkg = readJson('package.json') as {
  allowScripts?: Record<string, boolean>;
  scarfSettings?: { enabled?: boolean };
};
const lock = readJson('package-lock.json') as {
  packages: Record<string, { hasInstallScript?: boolean; name?: string }>;
};

/** The names of the packages in the lock file that have install scripts (aliases by their real name). */
const withInstallScripts = (): string[] => {
  const names = Object.entries(lock.packages)
    .filter(([where, entry]) => where !== '' && entry.hasInstallScript)
    .map(([where, entry]) => entry.name ?? where.slice(where.lastIndexOf('node_modules/') + 13));
  return [...new Set(names)].sort();
};

describe('install scripts', () => {
  it('the lock file has packages with install scripts (so the check below can fail)', () => {
    expect(withInstallScripts()).toContain('@scarf/scarf');
  });

  it('each one is decided in allowScripts', () => {
    const undecided = withInstallScripts().filter((name) => typeof pkg.allowScripts?.[name] !== 'boolean');
    expect(undecided).toEqual([]);
  });

  it('install-time telemetry is denied and opted out of', () => {
    expect(pkg.allowScripts?.['@scarf/scarf']).toBe(false);
    expect(pkg.scarfSettings?.enabled).toBe(false);
  });
});
