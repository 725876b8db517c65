// An egress connection as an audit row: entry point "network", tool "network", the destination and the
// decision in the input summary, bytes up as bytes in and bytes down as bytes out. Stats leave these
// rows out (they are connections, not calls).
import { newCallId } from '../lib/call-id.js';
import type { AuditEntry } from '../store/audit.js';
import type { ConnectionRecord } from './connections.js';

export const NETWORK_ENTRY_POINT = 'network';

export function connectionAuditEntry(record: ConnectionRecord): AuditEntry {
  const denied = record.decision === 'denied';
  return {
    callId: newCallId(),
    ts: record.startedAt,
    sessionId: record.sessionId,
    tool: 'network',
    category: 'network',
    status: denied ? 'refused' : 'success',
    errorCode: denied ? 'EGRESS_DENIED' : null,
    httpStatus: denied ? 403 : 200,
    durationMs: record.durationMs,
    bytesIn: record.bytesUp,
    bytesOut: record.bytesDown,
    caller: 'session',
    entryPoint: NETWORK_ENTRY_POINT,
    inputSummary: JSON.stringify({
      host: record.host,
      port: record.port,
      ...(record.address !== undefined ? { address: record.address } : {}),
      via: record.via,
      decision: record.decision,
      ...(record.reason !== undefined ? { reason: record.reason } : {}),
    }),
  };
}
