// The lookups a replica needs to route a request to its session's owner: whether a session named in a
// path exists (no lease is written for an id nobody created) and a parked call's session (approval
// decisions name only the call). Plain reads of the sessions and approvals tables through the asynchronous SqlDatabase, so
// routing never waits on a store's own API; expiry and authorisation stay the owner's to check.
import type { SqlDatabase } from './sql.js';

export class SessionRouting {
  constructor(private readonly db: SqlDatabase) {}

  async sessionExists(id: string): Promise<boolean> {
    return (await this.db.get('SELECT 1 AS found FROM sessions WHERE id = ?', [id])) !== undefined;
  }

  async sessionOfApproval(callId: string): Promise<string | undefined> {
    const row = await this.db.get<{ session_id: string }>(
      'SELECT session_id FROM approvals WHERE call_id = ?',
      [callId],
    );
    return row?.session_id;
  }
}
