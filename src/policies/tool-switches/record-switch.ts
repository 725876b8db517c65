// An operator's enable/disable is audited like a call: one row (entry point "admin", no session), so the
// audit log answers who turned what off and when. Stats leave these rows out.
import type { AuditStore } from '../../store/audit.js';
import type { SwitchKind } from './store.js';
import { newCallId } from '../../lib/call-id.js';

export const SWITCH_ENTRY_POINT = 'admin';

export function recordSwitch(
  audit: AuditStore,
  change: { kind: SwitchKind; name: string; category: string; enabled: boolean; bytesIn: number },
): void {
  audit.record({
    callId: newCallId(),
    ts: Date.now(),
    sessionId: null,
    tool: change.kind === 'tool' ? change.name : `category:${change.name}`,
    category: change.category,
    status: 'success',
    errorCode: null,
    httpStatus: 200,
    durationMs: 0,
    bytesIn: change.bytesIn,
    bytesOut: 0,
    caller: 'admin',
    entryPoint: SWITCH_ENTRY_POINT,
    inputSummary: JSON.stringify({ [change.kind]: change.name, enabled: change.enabled }),
  });
}
