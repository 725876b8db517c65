// What a tool sees of its session's workspace: named operations that run inside the session runtime.
// There is no host path here, on purpose: a tool cannot open, stat, rename or unlink a workspace path
// itself, so it cannot check a path and then use it after a command swapped it for a symlink.
import type { CancelSignal } from '../lib/cancellation.js';
import type { OpReply } from './connection.js';
import type { FileStat, OpArgs, OpName, OpResult } from './ops/index.js';
import type { SessionRuntime } from './session-runtime.js';

/** What one call read and wrote of its workspace, reported in the result's metadata. */
export interface IoUsage {
  bytesRead: number;
  bytesWritten: number;
  /** Distinct workspace paths the call's operations named. */
  filesAccessed: number;
}

export interface ResolveOptions {
  /** false: act on a symlink itself (delete, move, lstat) rather than on what it points to. */
  followFinalSymlink?: boolean;
}

export class Workspace {
  constructor(
    readonly runtime: SessionRuntime,
    /** The call's signal: a cancelled call cancels its runtime operations too. */
    private readonly signal?: CancelSignal,
  ) {}

  private bytesRead = 0;
  private bytesWritten = 0;
  private readonly paths = new Set<string>();

  /** What this workspace handle read and wrote so far: bytes of payloads both ways, distinct paths named. */
  ioUsage(): IoUsage {
    return { bytesRead: this.bytesRead, bytesWritten: this.bytesWritten, filesAccessed: this.paths.size };
  }

  /** False when the runtime runs unisolated (TOOLGATE_SANDBOX=none). */
  get isolated(): boolean {
    return this.runtime.isolated;
  }

  async call<K extends OpName>(op: K, args: OpArgs<K>, payload?: Uint8Array): Promise<OpReply<OpResult<K>>> {
    const named = args as { path?: unknown; from?: unknown; to?: unknown };
    if (typeof named.path === 'string') this.paths.add(named.path);
    if (typeof named.from === 'string') this.paths.add(named.from);
    if (typeof named.to === 'string') this.paths.add(named.to);
    const reply = await this.runtime.call(op, args, payload, this.signal);
    this.bytesWritten += payload?.byteLength ?? 0;
    this.bytesRead += reply.payload.byteLength;
    return reply;
  }

  private async result<K extends OpName>(op: K, args: OpArgs<K>, payload?: Uint8Array): Promise<OpResult<K>> {
    return (await this.call(op, args, payload)).result;
  }

  /** The relative form of a path after the confinement checks (403 PATH_OUTSIDE_WORKSPACE, 400 INVALID_PATH). */
  resolve(path: string, options: ResolveOptions = {}): Promise<{ relative: string }> {
    return this.result('resolve', { path, followFinalSymlink: options.followFinalSymlink });
  }

  /** stat, or lstat with follow false; `stat` is null when nothing is there. */
  stat(path: string, options: { follow?: boolean } = {}): Promise<OpResult<'stat'>> {
    return this.result('stat', { path, follow: options.follow });
  }

  /** A regular file's bytes (FILE_NOT_FOUND, NOT_A_FILE, FILE_TOO_LARGE otherwise). */
  async readFile(
    path: string,
    maxBytes: number,
    options: ResolveOptions = {},
  ): Promise<{ relative: string; bytes: Buffer; stat: FileStat; sha256: string }> {
    const { result, payload } = await this.call('readFile', {
      path,
      maxBytes,
      followFinalSymlink: options.followFinalSymlink,
    });
    return { ...result, bytes: payload };
  }

  /** SHA-256 of a regular file, undefined when there is none. */
  async hashFile(path: string): Promise<string | undefined> {
    return (await this.result('hashFile', { path })).sha256 ?? undefined;
  }

  /** Atomic write, parents created, mode kept unless given. */
  writeFile(path: string, bytes: Uint8Array, mode?: number): Promise<OpResult<'writeFile'>> {
    return this.result('writeFile', { path, mode }, bytes);
  }

  mkdir(path: string): Promise<OpResult<'mkdir'>> {
    return this.result('mkdir', { path });
  }

  remove(path: string, options: { recursive?: boolean } = {}): Promise<OpResult<'remove'>> {
    return this.result('remove', { path, recursive: options.recursive });
  }

  rename(from: string, to: string): Promise<OpResult<'rename'>> {
    return this.result('rename', { from, to });
  }

  symlink(target: string, path: string): Promise<OpResult<'symlink'>> {
    return this.result('symlink', { target, path });
  }

  chmod(path: string, mode: number): Promise<OpResult<'chmod'>> {
    return this.result('chmod', { path, mode });
  }

  readdir(path: string): Promise<OpResult<'readdir'>> {
    return this.result('readdir', { path });
  }

  usage(): Promise<OpResult<'usage'>> {
    return this.result('usage', {});
  }
}
