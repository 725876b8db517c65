// OpenTelemetry traces end to end: a loopback OTLP/HTTP receiver made here gets the spans of a batch, a
// REST command and an MCP call, all in the agent's trace (W3C traceparent); with tracing off nothing is sent.
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { activeTraceFields } from '../../src/http/request-trace.js';
import { createTracing } from '../../src/ops/tracing.js';
import { injectApp, type InjectApp } from '../helpers/app.js';
import { otlpReceiver, spansOf, type OtlpSpan } from '../helpers/otlp.js';

const attr = (span: OtlpSpan, key: string): string | number | boolean | undefined => {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  if (!value) return undefined;
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.boolValue;
};

/** Span ids from this span up to the root (or the agent's remote span). */
function ancestry(span: OtlpSpan, byId: Map<string, OtlpSpan>): string[] {
  const chain: string[] = [];
  for (let parent = span.parentSpanId; parent; parent = byId.get(parent)?.parentSpanId) chain.push(parent);
  return chain;
}

/** Indented `name` per span under its parent, the spans a parent holds in start order. */
function tree(spans: OtlpSpan[], rootId: string): string {
  const lines = [`agent span ${rootId} (remote, from traceparent)`];
  const children = (id: string) =>
    spans
      .filter((s) => s.parentSpanId === id)
      .sort((a, b) => (BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1));
  const walk = (id: string, depth: number) => {
    for (const child of children(id)) {
      const tool = attr(child, 'toolgate.tool');
      const status = attr(child, 'toolgate.status');
      lines.push(`${'  '.repeat(depth)}└ ${child.name}${tool ? ` [${tool}, ${status}]` : ''}`);
      walk(child.spanId, depth + 1);
    }
  };
  walk(rootId, 1);
  return lines.join('\n');
}

/** No global provider: the OTel API's own tracer still makes non-recording spans. */
const globalTracerIsNoop = () => !trace.getTracer('probe').startSpan('probe').isRecording();

describe('OpenTelemetry traces', () => {
  const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
  const AGENT_SPAN = '00f067aa0ba902b7';
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let t: InjectApp;
  let spans: OtlpSpan[];

  beforeAll(async () => {
    receiver = await otlpReceiver();
    t = await injectApp({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_SERVICE_NAME: 'toolgate-test',
    });
    const session = await t.createSession({ profile: 'execute', files: { 'notes.txt': 'one\ntwo\n' } });
    const traceparent = `00-${TRACE_ID}-${AGENT_SPAN}-01`;
    const batch = await t.http
      .post(`/v1/sessions/${session.id}/calls`)
      .set('authorization', `Bearer ${session.token}`)
      .set('traceparent', traceparent)
      .set('tracestate', 'agent=1')
      .send({
        calls: [
          { name: 'read_file', arguments: { path: 'notes.txt' } },
          { name: 'list_directory', arguments: {} },
          { name: 'read_file', arguments: { path: 'missing.txt' } },
        ],
      });
    expect(batch.status).toBe(200);
    const command = await t
      .call(session, 'run_command', { command: 'echo traced' })
      .set('traceparent', traceparent);
    expect(command.status).toBe(200);
    const mcp = await t.http
      .post('/mcp')
      .set('authorization', `Bearer ${session.token}`)
      .set('accept', 'application/json, text/event-stream')
      .set('traceparent', traceparent)
      .send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'file_info', arguments: { path: 'notes.txt' } },
      });
    expect(mcp.status).toBe(200);
    expect(globalTracerIsNoop()).toBe(true);
    // Closing the app flushes the batch processor: everything has arrived once close resolves.
    await t.close();
    spans = spansOf(receiver.requests);
  });
  afterAll(async () => {
    await new Promise((resolve) => receiver.server.close(resolve));
  });

  it("sends every span of the agent's requests in its trace, under the service name", () => {
    expect(spans.length).toBeGreaterThan(0);
    // Creating the session sent no traceparent: that request is a trace of its own, the rest is the agent's.
    const others = spans.filter((s) => s.traceId !== TRACE_ID);
    const otherRoots = others.filter((s) => !s.parentSpanId).map((s) => s.name);
    expect(otherRoots).toEqual(['POST /v1/sessions']);
    expect(new Set(others.map((s) => s.traceId)).size).toBe(1);
    const agentRoots = spans.filter((s) => s.traceId === TRACE_ID && s.parentSpanId === AGENT_SPAN);
    expect(agentRoots.map((s) => s.name).sort()).toEqual([
      'POST /mcp',
      'POST /v1/sessions/:id/calls',
      'POST /v1/sessions/:id/tools/run_command',
    ]);
    const names = receiver.requests.flatMap((r) =>
      r.resourceSpans.map((rs) => rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value),
    );
    expect(names).toContainEqual({ stringValue: 'toolgate-test' });
    console.info(tree(spans, AGENT_SPAN));
    console.info(
      tree(spans, others.find((s) => !s.parentSpanId)!.spanId).replace(
        /^agent span .*/,
        'POST /v1/sessions (its own trace)',
      ),
    );
  });

  it('makes one span per batch call, each a descendant of the agent span, with the call attributes', () => {
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const batchCalls = spans.filter(
      (s) => s.name.startsWith('tool ') && attr(s, 'toolgate.entry_point') === 'batch',
    );
    expect(batchCalls.map((s) => s.name).sort()).toEqual([
      'tool list_directory',
      'tool read_file',
      'tool read_file',
    ]);
    for (const call of batchCalls) {
      expect(ancestry(call, byId)).toContain(AGENT_SPAN);
      expect(byId.get(call.parentSpanId!)?.name).toBe('POST /v1/sessions/:id/calls');
    }
    const failed = batchCalls.find((s) => attr(s, 'toolgate.status') === 'error')!;
    expect(failed).toBeDefined();
    expect(attr(failed, 'toolgate.error.code')).toBe('FILE_NOT_FOUND');
    expect(attr(failed, 'http.response.status_code')).toBe(404);
    const ok = batchCalls.find(
      (s) => s.name === 'tool read_file' && attr(s, 'toolgate.status') === 'success',
    )!;
    expect(ok).toBeDefined();
    expect(attr(ok, 'toolgate.tool')).toBe('read_file');
    expect(attr(ok, 'toolgate.category')).toBe('filesystem');
    expect(attr(ok, 'toolgate.session.id')).toMatch(/\S/);
    expect(attr(ok, 'toolgate.bytes_in')).toBeGreaterThan(0);
    expect(attr(ok, 'toolgate.bytes_out')).toBeGreaterThan(0);
    expect(attr(ok, 'http.response.status_code')).toBe(200);
  });

  it('puts the pipeline steps beneath each call, and runtime operations beneath the run step', () => {
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    for (const call of spans.filter((s) => s.name.startsWith('tool '))) {
      const below = spans.filter((s) => ancestry(s, byId).includes(call.spanId)).map((s) => s.name);
      for (const step of [
        'step record',
        'step resolve',
        'step validate',
        'step authorize',
        'step rate-limit',
      ])
        expect(below).toContain(step);
    }
    const runtimeOps = spans.filter((s) => s.name.startsWith('runtime ') && s.traceId === TRACE_ID);
    expect(runtimeOps.map((s) => s.name)).toContain('runtime readFile');
    for (const op of runtimeOps) {
      const chain = ancestry(op, byId).map((id) => byId.get(id)?.name);
      expect(chain).toContain('step run');
    }
  });

  it('traces REST and MCP calls the same way, and a command from spawn to exit', () => {
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const rest = spans.find((s) => s.name === 'tool run_command')!;
    expect(attr(rest, 'toolgate.entry_point')).toBe('rest');
    expect(ancestry(rest, byId)).toContain(AGENT_SPAN);
    const command = spans.find((s) => s.name === 'command')!;
    expect(attr(command, 'process.exit.code')).toBe(0);
    expect(ancestry(command, byId)).toContain(rest.spanId);
    const mcp = spans.find((s) => s.name === 'tool file_info')!;
    expect(attr(mcp, 'toolgate.entry_point')).toBe('mcp');
    expect(ancestry(mcp, byId)).toContain(AGENT_SPAN);
  });
});

describe('OpenTelemetry traces, off', () => {
  it.each([
    ['no OTLP endpoint is configured', (_endpoint: string) => ({})],
    [
      'OTEL_SDK_DISABLED=true',
      (endpoint: string) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: 'true' }),
    ],
  ])('sends nothing and builds no tracing when %s', async (_case, env) => {
    const receiver = await otlpReceiver();
    const t = await injectApp(env(receiver.endpoint));
    try {
      expect(t.app.services.tracing).toBeUndefined();
      const session = await t.createSession({ profile: 'read-only', files: { 'a.txt': 'a\n' } });
      const res = await t
        .call(session, 'read_file', { path: 'a.txt' })
        .set('traceparent', `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`);
      expect(res.status).toBe(200);
      expect(globalTracerIsNoop()).toBe(true);
    } finally {
      await t.close();
      await new Promise((resolve) => receiver.server.close(resolve));
    }
    expect(receiver.requests).toEqual([]);
  });
});

describe('trace ids in log lines', () => {
  it('gives the pino mixin the active span ids inside traced work, nothing outside it', async () => {
    const quiet = { info() {}, warn() {}, error() {}, debug() {} };
    const tracing = createTracing({ endpoint: 'http://127.0.0.1:9/v1/traces', serviceName: 't' }, quiet)!;
    const span = tracing.tracer.startSpan('work');
    const inside = tracing.with(trace.setSpan(ROOT_CONTEXT, span), () => activeTraceFields(tracing));
    expect(inside).toEqual({ traceId: span.spanContext().traceId, spanId: span.spanContext().spanId });
    expect(activeTraceFields(tracing)).toEqual({});
    expect(activeTraceFields(undefined)).toEqual({});
    await tracing.shutdown(); // the span never ended: nothing is sent
  });
});

describe('telemetry config', () => {
  it('reads the standard OTel variables: base endpoint, traces endpoint, service name, disabled', () => {
    const telemetry = (env: Record<string, string>) => loadConfig(env).telemetry;
    expect(telemetry({})).toEqual({ endpoint: undefined, serviceName: 'toolgate' });
    expect(telemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' }).endpoint).toBe(
      'http://127.0.0.1:4318/v1/traces',
    );
    expect(
      telemetry({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4319/custom',
        OTEL_SERVICE_NAME: 'gate',
      }),
    ).toEqual({ endpoint: 'http://127.0.0.1:4319/custom', serviceName: 'gate' });
    expect(
      telemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }).endpoint,
    ).toBe(undefined);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4318' })).toThrow(ConfigError);
  });
});
