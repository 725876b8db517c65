// Policy and audit for transfers (raw files, archives), which move bytes outside the JSON tool pipeline:
// a transfer is allowed exactly when the tool it stands for would be (read_file for reads, write_file
// for writes: permissions, categories, excluded tools), and each one gets an audit row with its bytes,
// refused ones included, like a tool call. admitTransfer (the REST routes) also holds it to that tool's
// rate limits, counted per transfer, and to the session's approval policy: a transfer the policy would
// park is refused instead, since a streamed body cannot wait in the approvals table to be re-run.
import type { FastifyRequest } from 'fastify';
import { isToolgateError, toolgateError, type ToolgateError } from '../lib/errors.js';
import { newCallId } from '../lib/call-id.js';
import { statusOf } from './record.js';
import { summarizeInput } from '../lib/input-summary.js';
import { toolAccess } from '../policies/permissions/permissions.js';
import { needsApproval } from '../policies/approvals/step.js';
import { rateLimit } from '../policies/rate-limit/step.js';
import type { Config } from '../config.js';
import type { ToolRegistry } from '../contract/registry.js';
import type { RateLimitStore } from '../policies/rate-limit/store.js';
import type { AuditStore } from '../store/audit.js';
import type { SessionStore } from '../store/sessions.js';
import type { SessionRecord } from '../store/sessions.js';
import type { ResolvedCall, RunResult } from '../contract/call.js';

export const TRANSFER_CATEGORY = 'transfer';

/** The services a transfer is checked, limited and audited with. */
export interface TransferServices {
  readonly registry: ToolRegistry;
  readonly audit: AuditStore;
  readonly sessions: SessionStore;
  readonly config: Pick<Config, 'rateLimits'>;
  readonly rateLimitStore: RateLimitStore;
}

export interface TransferSpec {
  /** The audit log's name for it, e.g. file_upload. */
  readonly name: string;
  /** The tool whose permission it needs. */
  readonly like: 'read_file' | 'write_file';
  readonly input: Record<string, unknown>;
}

export interface Transfer {
  readonly callId: string;
  /** Headers for the response (RateLimit, RateLimit-Policy), as a tool call would send. */
  readonly headers: Record<string, string>;
  /** Writes the audit row; call exactly once. */
  end(outcome: { bytesIn: number; bytesOut: number; error?: unknown }): void;
}

function permissionError(
  services: TransferServices,
  session: SessionRecord,
  like: TransferSpec['like'],
): ToolgateError | undefined {
  const entry = services.registry.get(like);
  const needed = like === 'read_file' ? 'read' : 'write';
  const access = entry
    ? toolAccess(session, entry)
    : session.permissions.includes(needed)
      ? ({ allowed: true } as const)
      : {
          allowed: false as const,
          reason: `This needs the "${needed}" permission`,
          missingPermission: needed,
        };
  if (access.allowed) return undefined;
  return toolgateError('PERMISSION_DENIED', `${access.reason} (a file transfer is allowed when ${like} is)`, {
    suggestion: 'Ask the operator for a session whose profile allows it.',
    details: {
      tool: like,
      ...(access.missingPermission ? { missingPermission: access.missingPermission } : {}),
    },
  });
}

/** Who asked, over which entry point: an HTTP request (its principal), or MCP (always the session). */
export type TransferOrigin = FastifyRequest | { caller: 'session'; entryPoint: 'mcp' };

/** Checks the session may do it (throws PERMISSION_DENIED, audited) and starts its audit row. */
export function beginTransfer(
  services: TransferServices,
  origin: TransferOrigin,
  session: SessionRecord,
  spec: TransferSpec,
): Transfer {
  const request = 'entryPoint' in origin ? undefined : origin;
  const callId = newCallId();
  const started = performance.now();
  let ended = false;
  const transfer: Transfer = {
    callId,
    headers: {},
    end({ bytesIn, bytesOut, error }) {
      if (ended) return;
      ended = true;
      const failure = error === undefined ? undefined : isToolgateError(error) ? error : undefined;
      services.audit.record({
        callId,
        ts: Date.now(),
        sessionId: session.id,
        tool: spec.name,
        category: TRANSFER_CATEGORY,
        status: error === undefined ? 'success' : failure ? statusOf(failure) : 'error',
        errorCode: error === undefined ? null : (failure?.code ?? 'INTERNAL_ERROR'),
        httpStatus: error === undefined ? 200 : (failure?.statusCode ?? 500),
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        bytesIn,
        bytesOut,
        caller: request ? (request.principal?.kind ?? 'admin') : 'session',
        entryPoint: request ? 'rest' : 'mcp',
        inputSummary: summarizeInput(spec.input),
      });
      // Last-use tracking never fails a transfer.
      services.sessions.touch(session.id).catch(() => undefined);
    },
  };
  if (request) request.callInfo = { sessionId: session.id, tool: spec.name, callId };
  const refused = permissionError(services, session, spec.like);
  if (refused) {
    transfer.end({ bytesIn: 0, bytesOut: 0, error: refused });
    throw refused;
  }
  return transfer;
}

/** Refuses a transfer whose tool the session's approval policy covers (see policies/approvals/step.ts). */
function approvalError(services: TransferServices, session: SessionRecord, like: TransferSpec['like']) {
  const tool = services.registry.get(like)?.tool;
  if (tool === undefined || !needsApproval(session.approval, tool)) return undefined;
  return toolgateError(
    'PERMISSION_DENIED',
    `${like} needs an operator's approval in this session, and a file transfer cannot wait for one`,
    {
      suggestion: `Use the ${like} tool instead (its call is parked until an operator approves it).`,
      details: { tool: like, approvalRequired: true },
    },
  );
}

/**
 * beginTransfer, then the policies of the tool the transfer stands for, in the pipeline's order: its rate
 * limits (the rate-limit step itself, on that tool: one hit per transfer; 429 RATE_LIMITED with
 * Retry-After past it) and its approval policy. Refusals are audited like the permission refusal.
 */
export async function admitTransfer(
  services: TransferServices,
  request: FastifyRequest,
  session: SessionRecord,
  spec: TransferSpec,
): Promise<Transfer> {
  const transfer = beginTransfer(services, request, session, spec);
  try {
    const entry = services.registry.get(spec.like);
    if (entry) {
      const call: ResolvedCall = {
        request: {
          toolName: spec.like,
          input: spec.input,
          session,
          caller: request.principal?.kind ?? 'admin',
          entryPoint: 'rest',
          bytesIn: 0,
          callId: transfer.callId,
        },
        callId: transfer.callId,
        startedAt: Date.now(),
        entry,
        headers: transfer.headers,
      };
      await rateLimit(services.config.rateLimits, services.rateLimitStore)(
        call,
        async () => ({}) as RunResult,
      );
    }
    const refused = approvalError(services, session, spec.like);
    if (refused) throw refused;
  } catch (err) {
    transfer.end({ bytesIn: 0, bytesOut: 0, error: err });
    throw err;
  }
  return transfer;
}
