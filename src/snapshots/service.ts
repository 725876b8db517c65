// The snapshots of every session: the baseline taken when a session starts, named checkpoints, the
// "head" (the last snapshot of any kind, whose stat keys make the next one cheap), the changes since a
// snapshot, restores, and the copy a fork starts from. One operation per session at a time.
import path from 'node:path';
import { toolgateError } from '../lib/errors.js';
import type { Workspace } from '../runtime/workspace.js';
import {
  CHECKPOINT_ID,
  newCheckpointId,
  type Checkpoint,
  type CheckpointStore,
} from '../store/checkpoints.js';
import type { KeyedLock } from '../lib/keyed-lock.js';
import { applySnapshot, type Applied } from './apply.js';
import { BlobStore, eachInParallel } from './blob-store.js';
import { compareSnapshots, type FileChange } from './changes.js';
import { blobsOf, contentBytes, EMPTY_MANIFEST, type Manifest, type ManifestEntry } from './manifest.js';
import { takeSnapshot, type SnapshotLimits } from './take.js';

const START = 'start';
const HEAD = 'head';

/**
 * Makes a fork's workspace a copy-on-write view of the snapshot `entries`, its contents linked from
 * `blobPath` (see sandbox/overlay-workspaces.ts); resolves to where each entry's content now lives in
 * the view's read-only lower tree (a file that stays as long as the fork).
 */
export type ForkOverlay = (
  entries: readonly ManifestEntry[],
  blobPath: (sha: string) => string,
) => Promise<(entryPath: string) => string>;

export interface ChangeSet {
  readonly since: string;
  readonly changes: FileChange[];
  /** The content of one side of a change, from the store. */
  contentOf(entry: ManifestEntry): Promise<Buffer>;
}

const checkpointNotFound = (id: string) =>
  toolgateError('NOT_FOUND', `No checkpoint ${id.slice(0, 80)} in this session`, {
    suggestion: 'List the checkpoints with GET /v1/sessions/{id}/checkpoints (or checkpoint_list).',
  });

export class SnapshotService {
  constructor(
    private readonly baseDir: string,
    private readonly checkpoints: CheckpointStore,
    private readonly locks: KeyedLock,
    readonly limits: SnapshotLimits,
  ) {}

  store(sessionId: string): BlobStore {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(sessionId)) throw new Error(`invalid session id: ${sessionId}`);
    return new BlobStore(path.join(this.baseDir, sessionId));
  }

  private exclusive<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    return this.locks.run([`snapshots:${sessionId}`], work);
  }

  /**
   * The session's starting point, after its seed files: the base of `changes?since=start`. Without a
   * workspace (nothing seeded) it is the empty tree and no runtime is started for it.
   */
  async baseline(sessionId: string, workspace: Workspace | undefined): Promise<void> {
    await this.exclusive(sessionId, async () => {
      const store = this.store(sessionId);
      const manifest = workspace
        ? (await takeSnapshot(workspace, store, undefined, this.limits, { quiescent: true })).manifest
        : { ...EMPTY_MANIFEST, takenAt: Date.now() };
      await store.writeManifest(START, manifest);
      await store.writeManifest(HEAD, manifest);
    });
  }

  /** A snapshot of the workspace as it is now (the new head); drops blobs nothing refers to any more. */
  private async snapshotNow(sessionId: string, workspace: Workspace) {
    const store = this.store(sessionId);
    const head = await store.readManifest(HEAD);
    const taken = await takeSnapshot(workspace, store, head, this.limits);
    await this.replaceHead(sessionId, head, taken.manifest);
    return taken;
  }

  private async replaceHead(sessionId: string, old: Manifest | undefined, head: Manifest): Promise<void> {
    const store = this.store(sessionId);
    await store.writeManifest(HEAD, head);
    if (!old) return;
    const kept = blobsOf(head);
    const dropped = [...blobsOf(old)].filter((sha) => !kept.has(sha));
    if (dropped.length > 0) await this.collect(sessionId, dropped);
  }

  /** Removes those of `candidates` that no manifest of the session holds. */
  private async collect(sessionId: string, candidates: string[]): Promise<void> {
    const store = this.store(sessionId);
    const ids = [START, HEAD, ...(await this.checkpoints.list(sessionId)).map((c) => c.id)];
    const referenced = new Set<string>();
    for (const id of ids)
      for (const sha of blobsOf((await store.readManifest(id)) ?? EMPTY_MANIFEST)) referenced.add(sha);
    await store.removeBlobs(candidates.filter((sha) => !referenced.has(sha)));
  }

  async createCheckpoint(sessionId: string, workspace: Workspace, name?: string): Promise<Checkpoint> {
    return this.exclusive(sessionId, async () => {
      const taken = await this.snapshotNow(sessionId, workspace);
      const id = newCheckpointId();
      await this.store(sessionId).writeManifest(id, taken.manifest);
      return this.checkpoints.add(sessionId, {
        id,
        name: name ?? null,
        createdAt: Date.now(),
        files: taken.manifest.entries.filter((e) => e.type === 'file').length,
        bytes: contentBytes(taken.manifest),
        addedBytes: taken.addedBytes,
      });
    });
  }

  list(sessionId: string): Promise<Checkpoint[]> {
    return this.checkpoints.list(sessionId);
  }

  async get(sessionId: string, id: string): Promise<Checkpoint> {
    const checkpoint = CHECKPOINT_ID.test(id) ? await this.checkpoints.get(sessionId, id) : undefined;
    if (!checkpoint) throw checkpointNotFound(id);
    return checkpoint;
  }

  async deleteCheckpoint(sessionId: string, id: string): Promise<void> {
    await this.get(sessionId, id);
    await this.exclusive(sessionId, async () => {
      const store = this.store(sessionId);
      const manifest = await store.readManifest(id);
      await this.checkpoints.delete(sessionId, id);
      await store.removeManifest(id);
      if (manifest) await this.collect(sessionId, [...blobsOf(manifest)]);
    });
  }

  /** The manifest a `since` names: `start` or a checkpoint id. */
  private async base(sessionId: string, since: string): Promise<Manifest> {
    if (since !== START) await this.get(sessionId, since);
    const manifest = await this.store(sessionId).readManifest(since);
    if (!manifest) {
      if (since === START) {
        throw toolgateError('NOT_FOUND', 'This session has no recorded start (it predates snapshots)', {
          suggestion: 'Create a checkpoint and ask for the changes since it.',
        });
      }
      throw checkpointNotFound(since);
    }
    return manifest;
  }

  async restore(sessionId: string, workspace: Workspace, id: string): Promise<Applied> {
    await this.get(sessionId, id);
    return this.exclusive(sessionId, async () => {
      const store = this.store(sessionId);
      const target = await this.base(sessionId, id);
      // The workspace as it is now, kept first (cheap when little changed since the last snapshot): a
      // restore that fails half-way, on a full disk, puts it back. All or nothing; and with no room to
      // keep it, nothing is touched.
      const before = (await this.snapshotNow(sessionId, workspace)).manifest;
      try {
        const applied = await applySnapshot(workspace, store, target, before, this.limits);
        await this.replaceHead(sessionId, before, applied.manifest);
        return applied;
      } catch (err) {
        await applySnapshot(workspace, store, before, before, this.limits).catch(() => undefined);
        throw err;
      }
    });
  }

  /**
   * Every change since `since` (start or a checkpoint), whatever made it, handed to `use` while the
   * session's snapshots are held: the contents it reads stay in the store until it is done (a concurrent
   * snapshot would otherwise collect blobs of the head this one compares with).
   */
  async changes<T>(
    sessionId: string,
    workspace: Workspace,
    since: string,
    use: (set: ChangeSet) => Promise<T>,
  ): Promise<T> {
    const store = this.store(sessionId);
    return this.exclusive(sessionId, async () => {
      const base = await this.base(sessionId, since);
      const current = (await this.snapshotNow(sessionId, workspace)).manifest;
      return use({
        since,
        changes: compareSnapshots(base, current),
        contentOf: async (entry) =>
          entry.type === 'symlink' ? Buffer.from(entry.linkTarget ?? '', 'utf8') : store.read(entry.sha256!),
      });
    });
  }

  /**
   * A new session's workspace as a copy of this one's now: a snapshot of the parent (cheap when little
   * changed since its last), its blobs shared with the child's store by hard link. Then either the files
   * are written into the child's workspace by the child's runtime (full copy), or `overlay` makes the
   * child's workspace a copy-on-write view of that snapshot, linked from the parent's store while its
   * lock is held (nothing written; the child's store takes the blobs from that view just after, see
   * adoptFromTree; the child's start has no stat keys, so its first snapshot reads every file once).
   * The copy is the child's start. With `withCheckpoints`, the parent's checkpoints are the child's too.
   */
  async fork(
    parentId: string,
    parent: Workspace,
    childId: string,
    child: Workspace,
    options: { withCheckpoints: boolean; overlay?: ForkOverlay },
  ): Promise<{ files: number; bytes: number }> {
    const parentStore = this.store(parentId);
    const childStore = this.store(childId);
    const { manifest, checkpoints, lowerFile } = await this.exclusive(parentId, async () => {
      const taken = await this.snapshotNow(parentId, parent);
      const copied: { checkpoint: Checkpoint; manifest: Manifest }[] = [];
      if (options.withCheckpoints) {
        for (const checkpoint of await this.checkpoints.list(parentId)) {
          const kept = await parentStore.readManifest(checkpoint.id);
          if (kept) copied.push({ checkpoint, manifest: kept });
        }
      }
      // Linked while the parent's lock is held, so no collection removes a blob between snapshot and link.
      const lower =
        options.overlay && (await options.overlay(taken.manifest.entries, (sha) => parentStore.pathOf(sha)));
      // An overlay fork's lower tree holds the snapshot's contents: the child's store takes them from
      // there after the fork answers (below). Only the checkpoints' other blobs are needed from the parent.
      const inTree = new Set(
        lower ? taken.manifest.entries.filter((e) => e.size > 0).map((e) => e.sha256) : [],
      );
      const shas = new Set([...blobsOf(taken.manifest), ...copied.flatMap((c) => [...blobsOf(c.manifest)])]);
      const now = [...shas].filter((sha) => !inTree.has(sha));
      await eachInParallel(now, 32, (sha) => childStore.adopt(parentStore, sha));
      return { manifest: taken.manifest, checkpoints: copied, lowerFile: lower };
    });
    await this.exclusive(childId, async () => {
      let start: Manifest;
      if (lowerFile) {
        start = { takenAt: Date.now(), entries: manifest.entries.map(({ key: _key, ...entry }) => entry) };
      } else {
        const applied = await applySnapshot(child, childStore, manifest, undefined, this.limits, {
          quiescent: true,
        });
        start = applied.manifest;
      }
      await childStore.writeManifest(START, start);
      await childStore.writeManifest(HEAD, start);
      for (const { checkpoint, manifest: kept } of checkpoints) {
        await childStore.writeManifest(checkpoint.id, kept);
        await this.checkpoints.add(childId, { ...checkpoint, createdAt: Date.parse(checkpoint.createdAt) });
      }
    });
    if (lowerFile) this.adoptFromTree(childId, manifest, lowerFile);
    return { files: manifest.entries.filter((e) => e.type === 'file').length, bytes: contentBytes(manifest) };
  }

  /**
   * An overlay fork's store gets the snapshot's blobs by hard link from its own lower tree (which lives
   * as long as the fork), after the fork has answered but under the fork's lock: its first snapshot,
   * restore or changes, and its deletion, wait for it. A blob that cannot be linked is stored again
   * by the fork's next snapshot, which finds it missing.
   */
  private adoptFromTree(childId: string, manifest: Manifest, lowerFile: (entryPath: string) => string): void {
    const store = this.store(childId);
    const sources = new Map<string, string>();
    for (const entry of manifest.entries) {
      if (entry.sha256 && entry.size > 0 && !sources.has(entry.sha256)) sources.set(entry.sha256, entry.path);
    }
    void this.exclusive(childId, () =>
      eachInParallel([...sources], 32, ([sha, entryPath]) =>
        store.adoptFile(lowerFile(entryPath), sha).catch(() => undefined),
      ),
    ).catch(() => undefined);
  }

  async removeSession(sessionId: string): Promise<void> {
    await this.exclusive(sessionId, () => this.store(sessionId).removeAll());
  }
}
