// The session runtime's entry point: the process that runs inside the sandbox (or, unisolated, beside
// the service) and performs every operation on the workspace. It reads request frames on stdin and
// writes responses and process events on stdout; anything printed by accident goes to stderr instead.
import { promises as fs, realpathSync } from 'node:fs';
import path from 'node:path';
import { fromFsError, isToolgateError } from '../../lib/errors.js';
import {
  ATTACH_OP,
  attachMarker,
  FrameReader,
  writeFrame,
  type FrameHeader,
  type RequestHeader,
  type WireError,
} from '../protocol.js';
import { FrameWriter } from '../frame-writer.js';
import { commandHandlers } from './commands.js';
import { KeptOutput } from './kept-output.js';
import { fileHandlers } from './files.js';
import type { OpContext, Reply } from './handler.js';
import { WorkspacePaths } from './paths.js';
import { UsageTracker } from './usage.js';
import { snapshotHandlers } from './snapshot.js';
import { sourceHandlers } from './source.js';
import { treeHandlers } from './tree.js';
import { walkHandlers } from './walk.js';
import { SCRATCH_NAME } from './archive-extract.js';
import { StreamTable } from './streams.js';
import { transferHandlers } from './transfer.js';
import { gitHandlers } from './git-clone.js';
import { startEgressRelay } from './egress-relay.js';
import { shellHandlers } from './shells/handlers.js';
import { terminalHandlers } from './terminals/handlers.js';
import { kernelHandlers } from './kernels/handlers.js';
import { portHandlers } from './ports.js';

// The protocol owns stdout.
console.log = console.error;
console.info = console.error;

const root = realpathSync(process.env.TOOLGATE_RUNTIME_ROOT ?? process.cwd());
const paths = new WorkspacePaths(root);
const usage = new UsageTracker(root);
const quotaBytes = Number(process.env.TOOLGATE_RUNTIME_QUOTA_BYTES ?? 0) || 0;
const streams = new StreamTable();
// With the network: the relay to the egress socket (started below, before the runtime says it is ready);
// its proxy variables are filled in then, and every command and clone reads them when it starts.
const egressSocket = process.env.TOOLGATE_RUNTIME_EGRESS;
const proxyEnv: Record<string, string> = {};
const commands = commandHandlers({
  proxyEnv,
  quotaBytes,
  usage,
  shell: process.env.TOOLGATE_RUNTIME_SHELL ?? '/bin/sh',
  prlimit: process.env.TOOLGATE_RUNTIME_PRLIMIT || undefined,
  processLimit: process.env.TOOLGATE_RUNTIME_PROCESS_LIMIT === '1',
  kept: Number(process.env.TOOLGATE_RUNTIME_KEEP_OUTPUT_BYTES)
    ? new KeptOutput(Number(process.env.TOOLGATE_RUNTIME_KEEP_OUTPUT_BYTES))
    : undefined,
});
const shells = shellHandlers({
  bash: process.env.TOOLGATE_RUNTIME_SHELL ?? 'bash',
  processLimit: process.env.TOOLGATE_RUNTIME_PROCESS_LIMIT === '1',
  proxyEnv,
});

// Terminals and kernels live as long as this process: the same shell and limits as commands.
const interactiveSetup = {
  shell: process.env.TOOLGATE_RUNTIME_SHELL ?? '/bin/sh',
  processLimit: process.env.TOOLGATE_RUNTIME_PROCESS_LIMIT === '1',
  proxyEnv,
};
const terminals = terminalHandlers(interactiveSetup);
const kernels = kernelHandlers(interactiveSetup);

type AnyHandler = (
  args: unknown,
  payload: Buffer,
  ctx: OpContext,
) => Promise<Reply<unknown>> | Reply<unknown>;
const handlers = new Map<string, AnyHandler>(
  Object.entries({
    ...fileHandlers,
    ...commands.handlers,
    ...walkHandlers,
    ...sourceHandlers,
    ...treeHandlers,
    ...snapshotHandlers,
    ...transferHandlers(streams),
    ...gitHandlers(proxyEnv),
    ...shells.handlers,
    ...terminals.handlers,
    ...kernels.handlers,
    ...portHandlers(process.env.TOOLGATE_RUNTIME_INGRESS || undefined),
  }) as Array<[string, AnyHandler]>,
);

const out = new FrameWriter(process.stdout);
const send = (header: FrameHeader, payload?: Uint8Array) => {
  writeFrame(out, header, payload);
};

const toWire = (err: unknown): WireError => {
  if (isToolgateError(err)) {
    return {
      code: err.code,
      message: err.message,
      ...(err.suggestion !== undefined ? { suggestion: err.suggestion } : {}),
      ...(err.details !== undefined ? { details: err.details } : {}),
    };
  }
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  // A file-system error an operation did not name itself: the workspace changed under it (a command
  // moved, deleted or swapped something meanwhile), or a limit of the disk. Mapped like the tools' own
  // errors, but never with a path: the message of a raw fs error names the runtime's view of it.
  if (typeof (err as NodeJS.ErrnoException | undefined)?.errno === 'number') {
    const mapped = fromFsError(err, 'a path of this operation (did the workspace change meanwhile?)');
    if (mapped.code !== 'INTERNAL_ERROR') return toWire(mapped);
  }
  return {
    code: 'INTERNAL_ERROR',
    message: `runtime operation failed (${code ?? (err as Error)?.name ?? 'unknown'})`,
  };
};

/**
 * One operation's context. Its AbortSignal is made only when the handler asks for it: most operations
 * (a small read) finish without looking, and an AbortController per operation was a measurable part of
 * what one costs.
 */
class RunningOp implements OpContext {
  readonly paths = paths;
  readonly usage = usage;
  readonly quotaBytes = quotaBytes;
  readonly send = send;
  private cancelled = false;
  private controller: AbortController | undefined;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort();
    }
    return this.controller.signal;
  }

  cancel(): void {
    this.cancelled = true;
    this.controller?.abort();
  }
}

/** Running operations by attach epoch and request id (ids start again at 1 after a re-attach). */
const inFlight = new Map<string, RunningOp>();
/**
 * Counts attaches (container backends): an answer to a request of an earlier attach is dropped, since the
 * service that asked is gone and the new one numbers its requests from 1 again.
 */
let attachEpoch = 0;
/** Command numbers seen so far: after a re-attach the service numbers new commands past them. */
let maxProc = 0;

async function handle(request: RequestHeader, payload: Buffer): Promise<void> {
  if (request.op === 'cancel') {
    inFlight.get(`${attachEpoch}:${(request.args as { id: number }).id}`)?.cancel();
    return;
  }
  if (request.op === ATTACH_OP) {
    attachEpoch++;
    await startup;
    out.write(attachMarker(String((request.args as { nonce: unknown }).nonce)));
    send({ t: 'res', id: 0, ok: true, result: ready() });
    return;
  }
  if (request.op === 'spawn' || request.op === 'shellExec')
    maxProc = Math.max(maxProc, Number((request.args as { proc: number }).proc) || 0);
  const epoch = attachEpoch;
  const reply = (header: FrameHeader, payload?: Uint8Array) => {
    if (epoch === attachEpoch) send(header, payload);
  };
  const handler = handlers.get(request.op);
  if (!handler) {
    reply({
      t: 'res',
      id: request.id,
      ok: false,
      error: { code: 'INTERNAL_ERROR', message: `unknown runtime operation ${request.op}` },
    });
    return;
  }
  const op = new RunningOp();
  const key = `${epoch}:${request.id}`;
  inFlight.set(key, op);
  try {
    const out = await handler(request.args, payload, op);
    reply({ t: 'res', id: request.id, ok: true, result: out.result }, out.payload);
  } catch (err) {
    if (!isToolgateError(err)) console.error('runtime operation failed', request.op, err);
    reply({ t: 'res', id: request.id, ok: false, error: toWire(err) });
  } finally {
    inFlight.delete(key);
  }
}

/** Temp files of atomic writes and transfers cut short by a crash: nothing is writing now, so all of them can go. */
async function removeOrphanedTempFiles(dir: string, depth = 0): Promise<void> {
  if (depth > 64) return;
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    // Transfers cut short: an upload's zip or an extraction's staging directory.
    if (depth === 0 && SCRATCH_NAME.test(entry.name)) await fs.rm(full, { recursive: true, force: true });
    else if (entry.isDirectory()) await removeOrphanedTempFiles(full, depth + 1);
    else if (entry.isFile() && /^\..+\.tg-[0-9a-f]{12}\.tmp$/.test(entry.name))
      await fs.rm(full, { force: true });
  }
}

const reader = new FrameReader();
process.stdin.on('data', (chunk: Buffer) => {
  for (const frame of reader.push(chunk)) {
    if (frame.header.t === 'req') void handle(frame.header, frame.payload);
  }
});
// The service went away (or closed us): stop every command and exit.
const shutDown = () => {
  commands.killAll();
  shells.killAll();
  // Terminals' programs and kernels are in sessions of their own: ended here, not by a group kill.
  void Promise.race([
    Promise.all([terminals.closeAll(), kernels.closeAll()]),
    new Promise((resolve) => setTimeout(resolve, 2000)),
  ]).then(() => process.exit(0));
};
process.stdin.on('end', shutDown);
process.on('SIGTERM', shutDown);
const ready = () => ({ ready: true, pid: process.pid, nextProc: maxProc + 1 });
// Ready once leftovers are gone (a response to the implicit request 0), so no write of ours races the sweep.
const relayStarted = egressSocket
  ? startEgressRelay(egressSocket, process.env.TOOLGATE_RUNTIME_EGRESS_COPY === '1').then(
      (relay) => void Object.assign(proxyEnv, relay.env),
    )
  : Promise.resolve();
const startup = Promise.all([removeOrphanedTempFiles(root).catch(() => undefined), relayStarted]);
void startup.then(
  () => send({ t: 'res', id: 0, ok: true, result: ready() }),
  (err: unknown) => {
    // Without its relay the session has no network it was promised: fail the start, loudly.
    console.error('egress relay failed to start', err);
    process.exit(1);
  },
);
