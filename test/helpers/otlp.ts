// A loopback OTLP/HTTP receiver for tests that look at the spans an app exports (tracing on when
// OTEL_EXPORTER_OTLP_ENDPOINT is its endpoint), and the span shape of its JSON requests.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';

export interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
}
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  attributes?: { key: string; value: OtlpValue }[];
}
export interface OtlpRequest {
  resourceSpans: {
    resource?: { attributes?: { key: string; value: OtlpValue }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
}

/** A loopback OTLP/HTTP receiver: keeps every JSON export POSTed to /v1/traces. */
export async function otlpReceiver(): Promise<{ endpoint: string; requests: OtlpRequest[]; server: Server }> {
  const requests: OtlpRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        expect(req.headers['content-type']).toMatch(/application\/json/);
        requests.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpRequest);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, requests, server };
}

export const spansOf = (requests: OtlpRequest[]): OtlpSpan[] =>
  requests.flatMap((r) => r.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)));
