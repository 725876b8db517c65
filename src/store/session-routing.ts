// The two lookups a replica needs to know which session a request is for when the path does not say:
// a session token's session (MCP and other token-only requests) and a parked call's session (approval
// decisions). Plain reads of the sessions and approvals tables through the asynchronous SqlDatabase, so
// routing never waits on a store's own API; expiry and authorisation stay the owner's to check.
import type { SqlDatabase } from './sql.js';
import { hashToken } from './sessions.js';

export class SessionRouting {
  constructor(private readonly db: SqlDatabase) {}

  async sessionExists(id: string): Promise<boolean> {
    return (await this.db.get('SELECT 1 AS found FROM sessions WHERE id = ?', [id])) !== undefined;
  }

  async sessionOfToken(token: string): Promise<string | undefined> {
    const row = await this.db.get<{ id: string }>('SELECT id FROM sessions WHERE token_hash = ?', [
      hashToken(token),
    ]);
    return row?.id;
  }

  async sessionOfApproval(callId: string): Promise<string | undefined> {
    const row = await this.db.get<{ session_id: string }>(
      'SELECT session_id FROM approvals WHERE call_id = ?',
      [callId],
    );
    return row?.session_id;
  }
}
