// The pipeline's ordered step list (src/engine/steps.ts) is the order calls really run in: the list's
// names equal the documented order, and a traced call of the real app nests its step spans exactly so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PIPELINE_STEPS } from '../../src/engine/steps.js';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';
import { otlpReceiver, spansOf, type OtlpSpan } from '../helpers/otlp.js';

const DOCUMENTED_ORDER = [
  'record',
  'resolve',
  'enabled',
  'validate',
  'authorize',
  'duplicate',
  'idempotency',
  'rate-limit',
  'approval',
  'timeout',
  'retry',
];

describe('pipeline step order', () => {
  it('lists every step once, in the documented order', () => {
    expect(PIPELINE_STEPS.map((step) => step.name)).toEqual(DOCUMENTED_ORDER);
  });

  it('runs before resolve only what needs no tool, and checks before any policy', () => {
    expect(PIPELINE_STEPS.map((step) => step.stage)).toEqual([
      'outer',
      'resolve',
      'check',
      'check',
      'check',
      'policy',
      'policy',
      'policy',
      'policy',
      'run',
      'run',
    ]);
  });

  describe('in a traced call of the real app', () => {
    let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
    let t: TestApp;
    let spans: OtlpSpan[];

    beforeAll(async () => {
      receiver = await otlpReceiver();
      t = await startApp({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
      const created = await t.app.inject({
        method: 'POST',
        url: '/v1/sessions',
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
        payload: { profile: 'read-only', files: { 'notes.txt': 'one\n' } },
      });
      const session = created.json<{ id: string; token: string }>();
      const read = await t.app.inject({
        method: 'POST',
        url: `/v1/sessions/${session.id}/tools/read_file`,
        headers: { authorization: `Bearer ${session.token}` },
        payload: { path: 'notes.txt' },
      });
      expect(read.statusCode).toBe(200);
      // Closing flushes the batch span processor: every span has arrived once close resolves.
      await t.close();
      spans = spansOf(receiver.requests);
    });
    afterAll(async () => {
      await new Promise((resolve) => receiver.server.close(resolve));
    });

    it('nests one span per step, first outermost, with the run innermost', () => {
      const call = spans.find((span) => span.name === 'tool read_file');
      expect(call).toBeDefined();
      const chain: string[] = [];
      for (let parent = call; parent;) {
        const parentId: string = parent.spanId;
        parent = spans.find((span) => span.parentSpanId === parentId && span.name.startsWith('step '));
        if (parent) chain.push(parent.name);
      }
      expect(chain).toEqual([...DOCUMENTED_ORDER, 'run'].map((name) => `step ${name}`));
    });
  });
});
