// Hot reload of tool folders: the tools dir is watched while the service runs, and a folder added,
// changed or removed is picked up. A new or changed folder is checked first, exactly as at start; a bad
// one is refused with a log line and an audit row carrying the problem (visible to the operator in the
// audit log and the console), and the version that was serving keeps serving. A good one replaces the
// tool in the registry at once (new calls and listings see it; calls in flight finish on the entry they
// resolved), the registry tells MCP clients (notifications/tools/list_changed), and each change is one
// audit row (entry point "admin", caller "toolgate": not a call, left out of the stats).
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { AuditStore } from '../../store/audit.js';
import type { ToolRegistry } from '../../contract/registry.js';
import type { AnyTool } from '../../contract/tool.js';
import type { ToolLogger } from '../../lib/logger.js';
import { newCallId } from '../../lib/call-id.js';
import type { DefinitionOptions } from './definition.js';
import { folderFingerprint, loadToolFolder, toolFolderNames, type LoadedFolder } from './load.js';

/** Editors write a file in several steps: act once the folder has been quiet this long. */
const SETTLE_MS = 150;
const POLL_MS = 5000;

export type FolderChange = 'added' | 'changed' | 'removed' | 'refused';

export interface ToolFolderWatcherDeps {
  registry: ToolRegistry;
  audit: AuditStore;
  logger: ToolLogger;
  /** Wraps a loaded tool the way every tool is registered (the sandbox gate). */
  prepare(tool: AnyTool): AnyTool;
  options: DefinitionOptions;
}

interface Serving {
  /** The tool this folder serves; undefined when it never loaded. */
  name: string | undefined;
  category: string;
  /** What the folder held when last read, good or bad: the same content is not read again. */
  fingerprint: string;
}

export class ToolFolderWatcher {
  private readonly serving = new Map<string, Serving>();
  private watcher: FSWatcher | undefined;
  private readonly folderWatchers = new Map<string, FSWatcher | undefined>();
  private poll: NodeJS.Timeout | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly dir: string,
    private readonly deps: ToolFolderWatcherDeps,
  ) {}

  /** Starts watching; `loaded` are the folders read at start (already registered). */
  start(loaded: readonly LoadedFolder[]): void {
    for (const { folder, tool, fingerprint } of loaded) {
      this.serving.set(path.basename(folder), { name: tool.name, category: tool.category, fingerprint });
    }
    this.watcher = this.watchDir(this.dir);
    for (const { folder } of loaded) this.folderWatchers.set(path.basename(folder), this.watchDir(folder));
    // Watch events can be missed (a watched directory replaced whole, an event queue overflow): a slow
    // poll of the same fingerprints catches up.
    this.poll = setInterval(() => void this.rescan(), POLL_MS);
    this.poll.unref();
  }

  /**
   * A directory watch, not a recursive one: Node's recursive watch on Linux follows file inodes, and a
   * file replaced by a rename (how editors and deploys write) is not seen again; a directory's own watch
   * reports every entry created, renamed over, changed or removed in it.
   */
  private watchDir(dir: string): FSWatcher | undefined {
    try {
      const watcher = watch(dir, () => this.schedule());
      watcher.on('error', () => watcher.close());
      return watcher;
    } catch (err) {
      this.deps.logger.warn({ err, dir }, 'cannot watch a tool folder (the poll still reads it)');
      return undefined;
    }
  }

  /** Reads the directory again now (also what every watch event leads to, once things settle). */
  rescan(): Promise<void> {
    this.running = this.running
      .then(() => this.scan())
      .catch((err) => {
        this.deps.logger.error({ err, dir: this.dir }, 'tool folder rescan failed');
      });
    return this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.poll);
    this.watcher?.close();
    for (const watcher of this.folderWatchers.values()) watcher?.close();
    await this.running;
  }

  private schedule(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.rescan(), SETTLE_MS);
    this.timer.unref();
  }

  private async scan(): Promise<void> {
    if (this.closed) return;
    const names = await toolFolderNames(this.dir).catch(() => [] as string[]);
    for (const [folderName, watcher] of this.folderWatchers) {
      if (names.includes(folderName)) continue;
      watcher?.close();
      this.folderWatchers.delete(folderName);
    }
    for (const folderName of names) {
      if (!this.folderWatchers.has(folderName)) {
        this.folderWatchers.set(folderName, this.watchDir(path.join(this.dir, folderName)));
      }
    }
    for (const [folderName, serving] of this.serving) {
      if (names.includes(folderName)) continue;
      this.serving.delete(folderName);
      if (serving.name !== undefined && this.servedHere(serving.name, folderName)) {
        this.deps.registry.remove(serving.name);
        this.report('removed', folderName, serving);
      }
    }
    for (const folderName of names) await this.scanFolder(folderName);
  }

  private async scanFolder(folderName: string): Promise<void> {
    const folder = path.join(this.dir, folderName);
    const before = this.serving.get(folderName);
    const fingerprint = await folderFingerprint(folder);
    if (before?.fingerprint === fingerprint) return;
    let loaded: LoadedFolder;
    try {
      loaded = await loadToolFolder(folder, this.deps.options);
      const other = this.deps.registry.get(loaded.tool.name);
      if (other && other.source !== sourceOf(folderName)) {
        throw new Error(`tool "${loaded.tool.name}" is already defined by ${other.source}`);
      }
      this.deps.registry.replace(this.deps.prepare(loaded.tool), sourceOf(folderName));
    } catch (err) {
      // Remember the bad content (so it is reported once), but keep serving what served before.
      this.serving.set(folderName, { name: before?.name, category: before?.category ?? '', fingerprint });
      this.report('refused', folderName, before, (err as Error).message);
      return;
    }
    const { name, category } = loaded.tool;
    // A folder whose tool was renamed: the old name goes.
    if (before?.name !== undefined && before.name !== name && this.servedHere(before.name, folderName)) {
      this.deps.registry.remove(before.name);
    }
    this.serving.set(folderName, { name, category, fingerprint: loaded.fingerprint });
    this.report(before?.name !== undefined ? 'changed' : 'added', folderName, {
      name,
      category,
      fingerprint,
    });
  }

  /** The registry's tool of that name came from this folder (never remove a built-in or another's). */
  private servedHere(name: string, folderName: string): boolean {
    return this.deps.registry.get(name)?.source === sourceOf(folderName);
  }

  private report(
    change: FolderChange,
    folderName: string,
    tool: Serving | undefined,
    problem?: string,
  ): void {
    const fields = { folder: folderName, tool: tool?.name, change };
    if (problem) {
      this.deps.logger.warn(
        { ...fields, problem },
        `tool folder ${folderName} refused (the version before keeps serving): ${problem}`,
      );
    } else this.deps.logger.info(fields, `tool folder ${folderName} ${change}`);
    this.deps.audit.record({
      callId: newCallId(),
      ts: Date.now(),
      sessionId: null,
      tool: tool?.name ?? `folder:${folderName}`,
      category: tool?.category ?? '',
      status: problem ? 'error' : 'success',
      errorCode: problem ? 'TOOL_DEFINITION_INVALID' : null,
      httpStatus: problem ? 422 : 200,
      durationMs: 0,
      bytesIn: 0,
      bytesOut: 0,
      caller: 'toolgate',
      // The entry point of operator actions (tool switches): not a call, so the stats leave it out.
      entryPoint: 'admin',
      inputSummary: JSON.stringify({ ...fields, ...(problem ? { problem } : {}) }),
    });
  }
}

export const sourceOf = (folderName: string) => `folder ${folderName}`;
