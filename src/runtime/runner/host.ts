// Finds what the sandbox needs on this host — bwrap, prlimit, a shell, the layout of /bin and /lib —
// and writes the generated /etc files. Fixed locations only: nothing here reads the environment.
import { existsSync, lstatSync, mkdirSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SANDBOX_ETC, type HostLayout } from './bwrap-args.js';

const TOP_LEVEL = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];

export const firstExisting = (candidates: string[]): string | undefined =>
  candidates.find((p) => existsSync(p));

export const findBwrap = (): string | undefined => firstExisting(['/usr/bin/bwrap', '/usr/local/bin/bwrap']);
export const findPrlimit = (): string | undefined => firstExisting(['/usr/bin/prlimit', '/bin/prlimit']);
export const findShell = (): string => firstExisting(['/bin/bash', '/usr/bin/bash']) ?? '/bin/sh';

/** Writes <sandboxDir>/etc/{passwd,group,hosts} and describes the host's top-level system directories. */
export function prepareHostLayout(sandboxDir: string, prlimit: string): HostLayout {
  const etcDir = path.join(sandboxDir, 'etc');
  mkdirSync(etcDir, { recursive: true, mode: 0o755 });
  for (const [name, content] of Object.entries(SANDBOX_ETC)) {
    writeFileSync(path.join(etcDir, name), content, { mode: 0o644 });
  }
  const topLevel: Array<{ name: string; symlink?: string }> = [];
  for (const name of TOP_LEVEL) {
    const stat = lstatSync(`/${name}`, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isSymbolicLink()) topLevel.push({ name, symlink: readlinkSync(`/${name}`) });
    else if (stat.isDirectory()) topLevel.push({ name });
  }
  return { topLevel, etcDir, shell: findShell(), prlimit };
}
