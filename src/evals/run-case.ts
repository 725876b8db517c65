// One case, start to end: a fresh session (the admin key; seed files, bytes uploaded raw), its calls in
// order with the session's token through the entry format each names, the workspace files checked
// afterwards, and the session deleted whatever happened. Times what the case's requests took apart
// from the runner's own work around them (its overhead: building requests, checking answers).
import { isJsonObject } from '../lib/json.js';
import type { EvalCase, PlannedCall } from './case-schema.js';
import { sendCall, type SessionRef } from './entry-formats.js';
import { callMismatches, type Mismatch } from './expectations.js';
import { clip, fileMismatches } from './file-expectations.js';
import { jsonOf, type EvalRequest, type EvalTransport } from './transport.js';
import type { Variant } from './variant.js';

export interface CaseResult {
  /** "<dataset>/<name>" */
  id: string;
  dataset: string;
  name: string;
  tool: string;
  passed: boolean;
  /** Time in the case's tool calls (the p50/p95 per tool). */
  callMs: number;
  /** Wall time of the whole case, session made and removed included. */
  caseMs: number;
  /** caseMs less every request the case made: what the runner itself spent. */
  overheadMs: number;
  mismatches: Mismatch[];
}

/** The calls of a case, the one-call shorthand unfolded; the case's expect applies to the last. */
export function plannedCalls(evalCase: EvalCase): PlannedCall[] {
  const { expect = {} } = evalCase;
  const { files: _files, caseMaxDurationMs: _max, ...lastExpect } = expect;
  const calls: PlannedCall[] = evalCase.calls
    ? evalCase.calls.map((c) => ({
        tool: c.tool,
        input: c.input ?? {},
        via: c.via ?? 'rest',
        expect: c.expect ?? {},
      }))
    : [{ tool: evalCase.tool!, input: evalCase.input ?? {}, via: evalCase.via ?? 'rest', expect: {} }];
  const last = calls[calls.length - 1];
  last.expect = { ...last.expect, ...lastExpect };
  return calls;
}

export const toolOf = (evalCase: EvalCase): string =>
  evalCase.tool ?? evalCase.calls![evalCase.calls!.length - 1].tool;

const filesUrl = (session: SessionRef, file: string) =>
  `/v1/sessions/${session.id}/files/${file.split('/').map(encodeURIComponent).join('/')}`;

export async function runCase(
  transport: EvalTransport,
  adminToken: string,
  dataset: string,
  evalCase: EvalCase,
  variant: Variant,
): Promise<CaseResult> {
  const started = performance.now();
  let requestMs = 0;
  // Every request of the case is timed, so what is left of the wall time is the runner's own.
  const send = async (request: EvalRequest) => {
    const t0 = performance.now();
    try {
      return await transport.send(request);
    } finally {
      requestMs += performance.now() - t0;
    }
  };
  const timed: EvalTransport = { send };
  const mismatches: Mismatch[] = [];
  let callMs = 0;
  let session: SessionRef | undefined;
  try {
    const text = Object.fromEntries(
      Object.entries(evalCase.files ?? {}).filter(([, v]) => typeof v === 'string'),
    );
    const created = await send({
      method: 'POST',
      url: '/v1/sessions',
      token: adminToken,
      body: {
        profile: 'full',
        ...evalCase.session,
        ...variant.session,
        files: text,
        metadata: { eval: `${dataset}/${evalCase.name}` },
      },
    });
    const body = jsonOf(created);
    if (created.status !== 201 || !isJsonObject(body)) {
      mismatches.push({ what: 'session', expected: 201, actual: clip(body ?? created.status) });
      return result();
    }
    session = { id: String(body.id), token: String(body.token) };
    for (const [file, content] of Object.entries(evalCase.files ?? {})) {
      if (typeof content === 'string') continue;
      const put = await send({
        method: 'PUT',
        url: filesUrl(session, file),
        token: adminToken,
        body: Buffer.from(content.base64, 'base64'),
      });
      if (put.status >= 300)
        mismatches.push({ what: `seed file ${file}`, expected: 'uploaded', actual: clip(jsonOf(put)) });
    }
    if (mismatches.length > 0) return result();
    const calls = plannedCalls(evalCase);
    for (const [i, call] of calls.entries()) {
      const tool = variant.rename?.[call.tool] ?? call.tool;
      const outcome = await sendCall(timed, session, { ...call, tool });
      callMs += outcome.durationMs;
      const label = calls.length === 1 ? call.tool : `call ${i + 1} (${call.tool})`;
      const found = callMismatches(label, call.expect, outcome);
      // A sequence stops at the first call that went wrong: the calls after it assumed it went right.
      if (found.length > 0) {
        mismatches.push(...found.map((m) => ({ ...m, actual: clip(m.actual) })));
        return result();
      }
    }
    for (const [file, want] of Object.entries(evalCase.expect?.files ?? {})) {
      const res = await send({ method: 'GET', url: filesUrl(session, file), token: adminToken });
      mismatches.push(
        ...fileMismatches(file, want, res.status, res.status === 200 ? res.payload : undefined),
      );
    }
    const max = evalCase.expect?.caseMaxDurationMs;
    if (max !== undefined && callMs > max)
      mismatches.push({ what: 'case duration (ms)', expected: `≤ ${max}`, actual: Math.round(callMs) });
    return result();
  } catch (err) {
    mismatches.push({ what: 'runner', expected: 'no error', actual: (err as Error).message });
    return result();
  } finally {
    if (session)
      await send({ method: 'DELETE', url: `/v1/sessions/${session.id}`, token: adminToken }).catch(
        () => undefined,
      );
  }

  function result(): CaseResult {
    // Read when the case returns: the DELETE in finally is not in it, neither in wall time nor in requests.
    const caseMs = performance.now() - started;
    return {
      id: `${dataset}/${evalCase.name}`,
      dataset,
      name: evalCase.name,
      tool: toolOf(evalCase),
      passed: mismatches.length === 0,
      callMs: round(callMs),
      caseMs: round(caseMs),
      overheadMs: round(Math.max(0, caseMs - requestMs)),
      mismatches,
    };
  }
}

const round = (ms: number) => Math.round(ms * 100) / 100;
