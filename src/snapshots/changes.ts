// What changed between two snapshots, file by file, as git sees it: directories are not tracked, a file
// is compared by content (hash), executable bit and type, a deleted file whose exact content reappears
// under a new name is a rename.
import { Type, type Static } from 'typebox';
import { gitMode, type Manifest, type ManifestEntry } from './manifest.js';

export const ChangeStatus = Type.Enum(['added', 'deleted', 'modified', 'renamed', 'type_changed']);

export interface FileChange {
  readonly status: Static<typeof ChangeStatus>;
  /** The path before (absent for an added file). */
  readonly before?: ManifestEntry;
  /** The path after (absent for a deleted file). */
  readonly after?: ManifestEntry;
}

const tracked = (manifest: Manifest) =>
  new Map(manifest.entries.filter((e) => e.type !== 'directory').map((e) => [e.path, e]));

const sameContent = (a: ManifestEntry, b: ManifestEntry) =>
  a.type === b.type && (a.type === 'symlink' ? a.linkTarget === b.linkTarget : a.sha256 === b.sha256);

export function compareSnapshots(base: Manifest, current: Manifest): FileChange[] {
  const before = tracked(base);
  const after = tracked(current);
  const changes: FileChange[] = [];
  const deleted: ManifestEntry[] = [];
  const added: ManifestEntry[] = [];
  for (const [path, old] of before) {
    const now = after.get(path);
    if (!now) deleted.push(old);
    else if (old.type !== now.type) changes.push({ status: 'type_changed', before: old, after: now });
    else if (!sameContent(old, now) || gitMode(old) !== gitMode(now))
      changes.push({ status: 'modified', before: old, after: now });
  }
  for (const [path, now] of after) if (!before.has(path)) added.push(now);
  // Exact renames: a deleted file's content (and type) under a new name. Empty files are never paired,
  // as git does not pair them either: every empty file would look like every other.
  const deletedByContent = new Map<string, ManifestEntry[]>();
  for (const old of deleted) {
    if (old.size === 0 && old.type === 'file') continue;
    const id = `${old.type}:${old.sha256 ?? old.linkTarget}`;
    deletedByContent.set(id, [...(deletedByContent.get(id) ?? []), old]);
  }
  const renamedFrom = new Set<string>();
  for (const now of added) {
    const candidates = deletedByContent.get(`${now.type}:${now.sha256 ?? now.linkTarget}`);
    const old = candidates?.shift();
    if (old) {
      renamedFrom.add(old.path);
      changes.push({ status: 'renamed', before: old, after: now });
    } else changes.push({ status: 'added', after: now });
  }
  for (const old of deleted) if (!renamedFrom.has(old.path)) changes.push({ status: 'deleted', before: old });
  const pathOf = (change: FileChange) => (change.after ?? change.before)!.path;
  return changes.sort((a, b) => (pathOf(a) < pathOf(b) ? -1 : pathOf(a) > pathOf(b) ? 1 : 0));
}
