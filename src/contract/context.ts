// What a tool gets to work with. Tools import nothing from Fastify or routes: everything arrives here.
// Core declares the shape and the parts it owns; the services that live in the layers above core (the
// session runtime, jobs, the code index, history…) are added to ToolServices and ToolContext by
// src/tools/services.ts through declaration merging, so core never imports upwards (the same pattern
// Fastify uses for decorators).
import type { Config } from '../config.js';
import type { Db } from '../store/db.js';
import type { SessionRecord } from '../store/sessions.js';
import type { ToolLogger } from '../lib/logger.js';
import type { OutputChunk } from '../lib/output-chunk.js';
import type { IoUsage } from '../runtime/workspace.js';

/** Long-lived services shared by all calls; created in buildApp, released on close. */
export interface ToolServices {
  readonly config: Config;
  readonly db: Db;
}

export interface ToolContext {
  readonly callId: string;
  readonly session: SessionRecord;
  /** Aborted on timeout, client disconnect or shutdown; long work must stop when it fires. */
  readonly signal: AbortSignal;
  readonly logger: ToolLogger;
  readonly limits: Config['limits'];
  readonly services: ToolServices;
  emit(chunk: OutputChunk): void;
  /** The call's I/O so far; given by the layer that owns the workspace. */
  ioUsage?(): IoUsage;
}

/** How the pipeline's last step gets the parts of a call's context that the layers above core provide. */
export type CallContextExtras = Omit<ToolContext, keyof CoreToolContext>;
type CoreToolContext = Pick<
  ToolContext,
  'callId' | 'session' | 'signal' | 'logger' | 'limits' | 'services' | 'emit'
>;

export interface ToolInitContext {
  readonly services: ToolServices;
  readonly logger: ToolLogger;
}
