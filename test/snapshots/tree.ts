// Test helpers for snapshots: a tree read straight from disk (path → content hash, mode, link target),
// so tests compare what is really there, byte for byte, with what they expect.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

export interface TreeEntry {
  type: 'file' | 'dir' | 'symlink';
  mode: number;
  sha256?: string;
  target?: string;
}

/** Every entry under `root` (without `root` itself), symlinks not followed. */
export function readTree(root: string, options: { dirs?: boolean } = {}): Record<string, TreeEntry> {
  const out: Record<string, TreeEntry> = {};
  const visit = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      const rel = prefix ? `${prefix}/${name}` : name;
      const stat = lstatSync(full);
      const mode = stat.mode & 0o7777;
      if (stat.isSymbolicLink()) out[rel] = { type: 'symlink', mode: 0, target: readlinkSync(full) };
      else if (stat.isDirectory()) {
        if (options.dirs) out[rel] = { type: 'dir', mode };
        visit(full, rel);
      } else
        out[rel] = {
          type: 'file',
          mode,
          sha256: createHash('sha256').update(readFileSync(full)).digest('hex'),
        };
    }
  };
  visit(root, '');
  return out;
}

/** What git can carry of a tree: contents, the executable bit, symlinks (no other mode bits, no empty dirs). */
export const gitView = (tree: Record<string, TreeEntry>) =>
  Object.fromEntries(
    Object.entries(tree).map(([p, e]) => [
      p,
      e.type === 'file' ? { ...e, mode: e.mode & 0o100 ? 0o755 : 0o644 } : e,
    ]),
  );

/**
 * A session's tree as its own sandbox sees it (a fork's overlay workspace has nothing to read on the
 * host): one line per entry with type, mode and symlink target, and the sha256 of every file.
 */
export async function treeInside(
  t: {
    call(session: { id: string; token: string }, tool: string, input: unknown): PromiseLike<{ body: any }>;
  },
  session: { id: string; token: string },
): Promise<string> {
  const res = await t.call(session, 'run_command', {
    command:
      "find . -mindepth 1 -printf '%y %m %p %l\\n' | LC_ALL=C sort && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum",
  });
  if (res.body.data?.exitCode !== 0) throw new Error(`tree listing failed: ${JSON.stringify(res.body)}`);
  return res.body.data.stdout as string;
}
