// Moves an extracted archive from its staging directory into the target directory. A first pass finds
// every clash (a directory of the archive where the workspace has a file or a symlink, or the other way
// round) and refuses before anything moves; the second pass renames: whole directories where the
// workspace has none, merging into existing ones, files and symlinks replacing files and symlinks.
// Nothing in the workspace is followed: a workspace symlink is never entered, only replaced.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { toolgateError } from '../../lib/errors.js';
import { makeDirs } from '../../lib/make-dirs.js';
import { entryType } from './stat.js';

async function clashes(staging: string, target: string, relative: string, found: string[]): Promise<void> {
  if (found.length >= 10) return;
  for (const entry of await fs.readdir(staging, { withFileTypes: true })) {
    const destination = path.join(target, entry.name);
    const there = await fs.lstat(destination).catch(() => null);
    if (!there) continue;
    const name = relative ? `${relative}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (there.isDirectory()) await clashes(path.join(staging, entry.name), destination, name, found);
      else found.push(`${name} (a ${entryType(there)} in the workspace, a directory in the archive)`);
    } else if (there.isDirectory()) {
      found.push(
        `${name} (a directory in the workspace, a ${entry.isSymbolicLink() ? 'symlink' : 'file'} in the archive)`,
      );
    }
  }
}

async function move(staging: string, target: string): Promise<void> {
  for (const entry of await fs.readdir(staging, { withFileTypes: true })) {
    const source = path.join(staging, entry.name);
    const destination = path.join(target, entry.name);
    if (entry.isDirectory()) {
      const there = await fs.lstat(destination).catch(() => null);
      if (there?.isDirectory()) {
        await move(source, destination);
        continue;
      }
    }
    await fs.rename(source, destination);
  }
}

/** Refuses (CONFLICT, nothing moved) or moves everything from `staging` into `target` (created if missing). */
export async function placeExtracted(staging: string, target: string, targetRelative: string): Promise<void> {
  const targetStat = await fs.lstat(target).catch(() => null);
  if (targetStat) {
    const found: string[] = [];
    await clashes(staging, target, targetRelative === '.' ? '' : targetRelative, found);
    if (found.length > 0) {
      throw toolgateError('CONFLICT', `The archive clashes with the workspace at ${found.join(', ')}`, {
        suggestion:
          'Nothing was written. Remove or rename those paths first, or extract into another directory (?path=).',
        details: { clashes: found },
      });
    }
  } else await makeDirs(target);
  await move(staging, target);
}
