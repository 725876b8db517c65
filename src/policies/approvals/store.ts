// Calls waiting for an operator's approval, and what became of them (approved and run, denied, expired).
import type { Migration, SqlDatabase } from '../../store/sql.js';

export const approvalMigrations: Migration[] = [
  {
    name: 'approvals_0001_create',
    sql: `
      CREATE TABLE approvals (
        call_id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        tool TEXT NOT NULL,
        category TEXT NOT NULL,
        input TEXT NOT NULL,
        input_summary TEXT NOT NULL,
        caller TEXT NOT NULL,
        entry_point TEXT NOT NULL,
        status TEXT NOT NULL,
        reason TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        decided_at INTEGER,
        result TEXT
      );
      CREATE INDEX approvals_status ON approvals (status, created_at);
    `,
  },
];

/** pending → approved (running) → completed; or pending → denied / expired. */
export type ApprovalStatus = 'pending' | 'approved' | 'completed' | 'denied' | 'expired';

/** The final answer, as the REST route would have sent it. */
export interface ApprovalResult {
  status: number;
  body: unknown;
}

export interface ApprovalRecord {
  callId: string;
  sessionId: string;
  tool: string;
  category: string;
  input: unknown;
  inputSummary: string;
  caller: string;
  entryPoint: string;
  status: ApprovalStatus;
  reason: string | null;
  createdAt: number;
  expiresAt: number;
  decidedAt: number | null;
  result: ApprovalResult | null;
}

interface Row {
  call_id: string;
  session_id: string;
  tool: string;
  category: string;
  input: string;
  input_summary: string;
  caller: string;
  entry_point: string;
  status: ApprovalStatus;
  reason: string | null;
  created_at: number;
  expires_at: number;
  decided_at: number | null;
  result: string | null;
}

const fromRow = (row: Row): ApprovalRecord => ({
  callId: row.call_id,
  sessionId: row.session_id,
  tool: row.tool,
  category: row.category,
  input: JSON.parse(row.input),
  inputSummary: row.input_summary,
  caller: row.caller,
  entryPoint: row.entry_point,
  status: row.status,
  reason: row.reason,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  decidedAt: row.decided_at,
  result: row.result === null ? null : JSON.parse(row.result),
});

export type NewApproval = Pick<
  ApprovalRecord,
  | 'callId'
  | 'sessionId'
  | 'tool'
  | 'category'
  | 'input'
  | 'inputSummary'
  | 'caller'
  | 'entryPoint'
  | 'createdAt'
  | 'expiresAt'
>;

export class ApprovalStore {
  constructor(private readonly db: SqlDatabase) {}

  async create(approval: NewApproval): Promise<void> {
    await this.db.run(
      `INSERT INTO approvals (call_id, session_id, tool, category, input, input_summary, caller, entry_point, status,
         created_at, expires_at)
       VALUES (@callId, @sessionId, @tool, @category, @input, @inputSummary, @caller, @entryPoint, 'pending',
         @createdAt, @expiresAt)`,
      {
        callId: approval.callId,
        sessionId: approval.sessionId,
        tool: approval.tool,
        category: approval.category,
        input: JSON.stringify(approval.input),
        inputSummary: approval.inputSummary,
        caller: approval.caller,
        entryPoint: approval.entryPoint,
        createdAt: approval.createdAt,
        expiresAt: approval.expiresAt,
      },
    );
  }

  async get(callId: string): Promise<ApprovalRecord | undefined> {
    const row = await this.db.get<Row>('SELECT * FROM approvals WHERE call_id = ?', [callId]);
    return row && fromRow(row);
  }

  /** Returns false when the call was no longer pending (already decided, or expired). */
  async setDecision(
    callId: string,
    status: 'approved' | 'denied',
    reason: string | null,
    result: ApprovalResult | null,
    now = Date.now(),
  ): Promise<boolean> {
    // Only a pending, unexpired call can be decided: the WHERE makes a double decision a no-op.
    const { changes } = await this.db.run(
      `UPDATE approvals SET status = @status, reason = @reason, decided_at = @now, result = @result
       WHERE call_id = @callId AND status = 'pending' AND expires_at > @now`,
      { callId, status, reason, now, result: result === null ? null : JSON.stringify(result) },
    );
    return changes > 0;
  }

  async setResult(callId: string, result: ApprovalResult): Promise<void> {
    await this.db.run(`UPDATE approvals SET status = 'completed', result = ? WHERE call_id = ?`, [
      JSON.stringify(result),
      callId,
    ]);
  }

  /** Marks every pending call past its deadline expired, with `result`; returns those calls. */
  async expireDue(result: ApprovalResult, now = Date.now()): Promise<ApprovalRecord[]> {
    const rows = await this.db.all<Row>(
      `UPDATE approvals SET status = 'expired', decided_at = @now, result = @result
       WHERE status = 'pending' AND expires_at <= @now
       RETURNING *`,
      { now, result: JSON.stringify(result) },
    );
    return rows.map(fromRow);
  }

  async list(filter: {
    status?: ApprovalStatus;
    sessionId?: string;
    limit: number;
  }): Promise<ApprovalRecord[]> {
    // Clauses only for the filters given: PostgreSQL cannot type a parameter that is only tested for NULL.
    const clauses: string[] = [];
    const params: Record<string, string | number> = { limit: filter.limit };
    if (filter.status !== undefined) {
      clauses.push('status = @status');
      params.status = filter.status;
    }
    if (filter.sessionId !== undefined) {
      clauses.push('session_id = @sessionId');
      params.sessionId = filter.sessionId;
    }
    const rows = await this.db.all<Row>(
      `SELECT * FROM approvals ${clauses.length ? `WHERE ${clauses.join(' AND ')}` : ''}
       ORDER BY created_at DESC LIMIT @limit`,
      params,
    );
    return rows.map(fromRow);
  }
}
