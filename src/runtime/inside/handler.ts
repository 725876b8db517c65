// What an operation's implementation inside the runtime looks like.
import type { FrameHeader } from '../protocol.js';
import type { WorkspacePaths } from './paths.js';
import type { UsageTracker } from './usage.js';

export interface OpContext {
  readonly paths: WorkspacePaths;
  /** Bytes and files in the workspace; handlers that change sizes tell it by how much. */
  readonly usage: UsageTracker;
  /** The workspace quota in bytes (0: none): uploads and extractions are held to it. */
  readonly quotaBytes: number;
  /** Aborted when the service cancels the request (call timeout, client gone). */
  readonly signal: AbortSignal;
  /** Sends an unsolicited frame (process output and exits). */
  send(header: FrameHeader, payload?: Uint8Array): void;
}

export interface Reply<R> {
  readonly result: R;
  readonly payload?: Uint8Array;
}

/** Implementations of one group of operations (`T` is its type map, e.g. FileOps). */
export type Handlers<T extends { [K in keyof T]: { args: unknown; result: unknown } }> = {
  [K in keyof T]: (
    args: T[K]['args'],
    payload: Buffer,
    ctx: OpContext,
  ) => Promise<Reply<T[K]['result']>> | Reply<T[K]['result']>;
};

export const reply = <R>(result: R, payload?: Uint8Array): Reply<R> => ({ result, payload });
