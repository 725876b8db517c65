// The operator's side of approvals: approve (the parked call re-enters the pipeline through `run`, given by
// createServices, and its answer is stored), deny, expire; and waiting for a parked call's result (long-poll).
import type { CancelSignal } from '../../lib/cancellation.js';
import { toolgateError, type ErrorBody } from '../../lib/errors.js';
import { failureEnvelope } from '../../lib/envelope.js';
import type { ToolLogger } from '../../lib/logger.js';
import type { CallRequest, CallerKind, EntryPoint } from '../../contract/call.js';
import type { ApprovalRecord, ApprovalResult, ApprovalStatus, ApprovalStore } from './store.js';
import { expireApprovals } from './expire.js';
import type { SessionStore } from '../../store/sessions.js';
import type { AuditStore } from '../../store/audit.js';
import type { ActivityPublisher } from '../../contract/policy.js';
import { recordDecision } from './record-decision.js';

const failure = (callId: string, status: number, error: ErrorBody): ApprovalResult => ({
  status,
  body: failureEnvelope(error, { callId }),
});

/** Runs an approved call through the pipeline and answers with its envelope, as a value to store. */
export type RunApproved = (request: CallRequest) => Promise<ApprovalResult>;

export class ApprovalService {
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(
    private readonly store: ApprovalStore,
    private readonly sessions: SessionStore,
    private readonly audit: AuditStore,
    private readonly events: ActivityPublisher,
    private readonly run: RunApproved,
    private readonly logger: ToolLogger,
  ) {}

  private async pendingOrThrow(callId: string): Promise<ApprovalRecord> {
    const record = await this.store.get(callId);
    if (!record) throw toolgateError('CALL_NOT_FOUND', `No call ${callId.slice(0, 80)} awaits approval`);
    if (record.status !== 'pending' || record.expiresAt <= Date.now()) {
      throw toolgateError(
        'CONFLICT',
        `Call ${callId} is ${record.status === 'pending' ? 'expired' : record.status}`,
        {
          details: { status: record.status },
        },
      );
    }
    return record;
  }

  /** The record just decided; gone only if its session was deleted meanwhile (rows go with it). */
  private async decided(callId: string): Promise<ApprovalRecord> {
    const record = await this.store.get(callId);
    if (!record)
      throw toolgateError('CALL_NOT_FOUND', `Call ${callId.slice(0, 80)} is gone with its session`);
    return record;
  }

  /** Approves and starts the call; resolves when it has run and its result is stored. */
  async approve(callId: string, reason: string | null): Promise<ApprovalRecord> {
    const record = await this.pendingOrThrow(callId);
    if (!(await this.store.setDecision(callId, 'approved', reason, null))) await this.pendingOrThrow(callId);
    const session = await this.sessions.get(record.sessionId);
    let result: ApprovalResult;
    if (!session) {
      result = failure(
        callId,
        404,
        toolgateError('SESSION_NOT_FOUND', 'The session of this call is gone').toBody(),
      );
    } else {
      result = await this.run({
        toolName: record.tool,
        input: record.input,
        session,
        caller: record.caller as CallerKind,
        entryPoint: record.entryPoint as EntryPoint,
        bytesIn: 0,
        callId,
        approved: true,
      });
    }
    await this.store.setResult(callId, result);
    this.notify(callId);
    return this.decided(callId);
  }

  async deny(callId: string, reason: string | null): Promise<ApprovalRecord> {
    await this.pendingOrThrow(callId);
    const error = toolgateError(
      'APPROVAL_DENIED',
      `An operator denied this call${reason ? `: ${reason}` : ''}`,
    );
    const now = Date.now();
    if (
      !(await this.store.setDecision(
        callId,
        'denied',
        reason,
        failure(callId, error.statusCode, error.toBody()),
        now,
      ))
    ) {
      await this.pendingOrThrow(callId);
    }
    const record = await this.decided(callId);
    recordDecision({ audit: this.audit, events: this.events }, record, {
      error,
      decidedBy: 'admin',
      reason,
      at: now,
    });
    this.notify(callId);
    return record;
  }

  expireDue(now = Date.now()): Promise<number> {
    return expireApprovals(this.store, { audit: this.audit, events: this.events }, this.logger, now);
  }

  /** The call's record once it has a result, or as it is when `waitMs` runs out. */
  async waitForResult(
    callId: string,
    waitMs: number,
    signal?: CancelSignal,
  ): Promise<ApprovalRecord | undefined> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      let record = await this.store.get(callId);
      if (record?.status === 'pending' && record.expiresAt <= Date.now()) {
        await this.expireDue();
        record = await this.store.get(callId);
      }
      if (!record || record.result !== null || Date.now() >= deadline || signal?.aborted) return record;
      // Woken by a decision in this process; the 1 s cap also catches decisions made by another instance.
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiters.get(callId)?.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.min(1000, Math.max(0, deadline - Date.now())));
        const waiting = this.waiters.get(callId) ?? new Set<() => void>();
        this.waiters.set(callId, waiting);
        waiting.add(wake);
      });
      if (this.waiters.get(callId)?.size === 0) this.waiters.delete(callId);
    }
  }

  list(filter: { status?: ApprovalStatus; sessionId?: string; limit: number }): Promise<ApprovalRecord[]> {
    return this.store.list(filter);
  }

  private notify(callId: string): void {
    for (const wake of this.waiters.get(callId) ?? []) wake();
  }
}
