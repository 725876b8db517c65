// Path resolution inside the runtime. The runtime's root is the workspace (/workspace in the sandbox),
// and the sandbox holds nothing else that is writable or secret: confinement comes from the namespace,
// not from this check. The check is still made, so that "..", and symlinks that lead out of the
// workspace, get a clear 403 instead of reaching the sandbox's own /etc or /tmp.
import { promises as fs, realpathSync } from 'node:fs';
import path from 'node:path';
import { toolgateError } from '../../lib/errors.js';

const MAX_PATH_LENGTH = 4096;
const MAX_COMPONENT_BYTES = 255;
const MAX_LINK_HOPS = 40;

export interface ResolvedPath {
  /** Path in the runtime's view, every symlink resolved (or, with followFinalSymlink false, all but the last). */
  readonly absolute: string;
  /** Workspace-relative POSIX path, "." for the root; safe to show to callers. */
  readonly relative: string;
}

export interface ResolveOptions {
  /** false: act on a symlink itself (delete, move, lstat) rather than on what it points to. */
  followFinalSymlink?: boolean;
}

const clip = (text: string) => (text.length > 120 ? `${text.slice(0, 120)}…` : text);

export const outsideWorkspace = (input: string) =>
  toolgateError('PATH_OUTSIDE_WORKSPACE', `Path "${clip(input)}" is outside the workspace`, {
    suggestion:
      'Use a path relative to the workspace root, e.g. "src/index.ts"; "/" means the workspace root.',
  });

export class WorkspacePaths {
  /** @param root the workspace directory's real path in the runtime's view */
  constructor(readonly root: string) {}

  contains(absolute: string): boolean {
    return absolute === this.root || absolute.startsWith(this.root + path.sep);
  }

  toRelative(absolute: string): string {
    const rel = path.relative(this.root, absolute);
    return rel === '' ? '.' : rel.split(path.sep).join('/');
  }

  /** The runtime-view path of a relative path that was already resolved (no checks, no disk). */
  join(relative: string): string {
    return relative === '.' ? this.root : path.join(this.root, relative);
  }

  async resolve(input: string, options: ResolveOptions = {}): Promise<ResolvedPath> {
    const lexical = this.lexical(input);
    const followFinal = options.followFinalSymlink ?? true;
    let absolute: string;
    if (followFinal || lexical === this.root) {
      absolute = await this.realpathAllowingMissing(lexical, input, 0);
    } else {
      const parent = await this.realpathAllowingMissing(path.dirname(lexical), input, 0);
      absolute = path.join(parent, path.basename(lexical));
    }
    if (!this.contains(absolute)) throw outsideWorkspace(input);
    return { absolute, relative: this.toRelative(absolute) };
  }

  /** Checks the raw string and joins it to the root without touching the disk. */
  private lexical(input: string): string {
    if (input.includes('\0')) {
      throw toolgateError('INVALID_PATH', 'Path contains a NUL byte', {
        suggestion: 'Remove the NUL character.',
      });
    }
    if (input.length > MAX_PATH_LENGTH) {
      throw toolgateError('INVALID_PATH', `Path is longer than ${MAX_PATH_LENGTH} characters`);
    }
    // Backslashes are ordinary filename characters on POSIX; nothing is URL-decoded, so "%2e%2e" is a name.
    const relative = path.posix.normalize(input.replace(/^\/+/, '') || '.');
    if (relative === '..' || relative.startsWith('../')) throw outsideWorkspace(input);
    for (const component of relative.split('/')) {
      if (Buffer.byteLength(component) > MAX_COMPONENT_BYTES) {
        throw toolgateError('INVALID_PATH', `A path component is longer than ${MAX_COMPONENT_BYTES} bytes`);
      }
    }
    return relative === '.' ? this.root : path.join(this.root, relative);
  }

  /**
   * realpath for a path that may not exist yet: resolve the deepest existing ancestor and append the rest.
   * A dangling symlink on the way is followed by hand, so "link-to-outside/new-file" is caught too.
   */
  private async realpathAllowingMissing(target: string, input: string, hops: number): Promise<string> {
    if (hops > MAX_LINK_HOPS)
      throw toolgateError('INVALID_PATH', `Too many symbolic links in "${clip(input)}"`);
    try {
      return realpathSync.native(target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOOP')
        throw toolgateError('INVALID_PATH', `Too many symbolic links in "${clip(input)}"`);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
    }
    const link = await fs.readlink(target).catch(() => undefined);
    if (link !== undefined) {
      return this.realpathAllowingMissing(path.resolve(path.dirname(target), link), input, hops + 1);
    }
    const parent = path.dirname(target);
    if (parent === target) return target;
    const realParent = await this.realpathAllowingMissing(parent, input, hops);
    return path.join(realParent, path.basename(target));
  }
}
