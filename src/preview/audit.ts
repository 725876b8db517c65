// A preview request or WebSocket connection as an audit row: entry point "preview", tool "preview",
// the port, method, path (no query: it may hold the app's secrets) and how the caller got in, in the
// input summary; bytes to the app as bytes in, from it as bytes out. Stats leave these rows out (they
// are a session's visitors, not its calls), as they do egress connections.
import { newCallId } from '../lib/call-id.js';
import type { AuditEntry } from '../store/audit.js';

export const PREVIEW_ENTRY_POINT = 'preview';

export interface PreviewRecord {
  readonly sessionId: string;
  readonly port: number;
  readonly method: string;
  /** The path the app was asked for, without the query. */
  readonly path: string;
  readonly websocket: boolean;
  /** How the caller got in: a bearer token (`admin`, `session`) or a signed link (`link`). */
  readonly caller: 'admin' | 'session' | 'link';
  /** The app's status (101 for an accepted WebSocket); 0 when it never answered. */
  readonly status: number;
  /** The error code when toolgate refused or could not connect. */
  readonly errorCode?: string;
  readonly bytesIn: number;
  readonly bytesOut: number;
  readonly startedAt: number;
  readonly durationMs: number;
}

export type PreviewSink = (record: PreviewRecord) => void;

/** What is known of a preview request or connection before it ends: who, which port, what. */
export type PreviewVisit = Pick<
  PreviewRecord,
  'sessionId' | 'port' | 'method' | 'path' | 'websocket' | 'caller'
>;

/** How it ended. */
export interface PreviewOutcome {
  readonly status: number;
  readonly errorCode?: string;
  readonly bytesIn: number;
  readonly bytesOut: number;
}

/** The record of a visit that began at `startedAt` and ends now (the HTTP proxy's and the upgrade's). */
export function previewRecordOf(
  visit: PreviewVisit,
  startedAt: number,
  outcome: PreviewOutcome,
): PreviewRecord {
  const { status, errorCode, bytesIn, bytesOut } = outcome;
  return {
    ...visit,
    status,
    ...(errorCode !== undefined ? { errorCode } : {}),
    bytesIn,
    bytesOut,
    startedAt,
    durationMs: Date.now() - startedAt,
  };
}

export function previewAuditEntry(record: PreviewRecord): AuditEntry {
  const refused = record.errorCode !== undefined;
  return {
    callId: newCallId(),
    ts: record.startedAt,
    sessionId: record.sessionId,
    tool: 'preview',
    category: 'preview',
    status: refused ? (record.errorCode === 'PORT_NOT_LISTENING' ? 'error' : 'refused') : 'success',
    errorCode: record.errorCode ?? null,
    httpStatus: record.status,
    durationMs: record.durationMs,
    bytesIn: record.bytesIn,
    bytesOut: record.bytesOut,
    caller: record.caller,
    entryPoint: PREVIEW_ENTRY_POINT,
    inputSummary: JSON.stringify({
      port: record.port,
      method: record.method,
      path: record.path.slice(0, 300),
      ...(record.websocket ? { websocket: true } : {}),
    }),
  };
}
