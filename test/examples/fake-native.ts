// A scripted model on loopback speaking the OpenAI Responses API (POST …/responses) and the Anthropic
// Messages API (POST …/v1/messages): each request gets the next step of the script, which sees the
// request body (the conversation so far) and returns the output items or content blocks of the turn.
// Requests are kept for the test to inspect. Nothing leaves the machine.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Json = Record<string, unknown>;
export type Step = (body: Json) => Json[];

export interface FakeNative {
  /** For OPENAI_BASE_URL. */
  openaiBaseUrl: string;
  /** For ANTHROPIC_BASE_URL. */
  anthropicBaseUrl: string;
  requests: Json[];
  close(): Promise<void>;
}

const readBody = async (req: IncomingMessage): Promise<Json> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
};

const responseOf = (n: number, model: unknown, output: Json[]) => ({
  id: `resp_${n}`,
  object: 'response',
  created_at: 0,
  model,
  status: 'completed',
  output,
  parallel_tool_calls: true,
  tool_choice: 'auto',
  tools: [],
  error: null,
  incomplete_details: null,
  instructions: null,
  metadata: {},
});

const messageOf = (n: number, model: unknown, content: Json[]) => ({
  id: `msg_${n}`,
  type: 'message',
  role: 'assistant',
  model,
  content,
  stop_reason: content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 },
});

export async function startFakeNative(script: Step[]): Promise<FakeNative> {
  const requests: Json[] = [];
  const server = createServer(async (req, res) => {
    const url = req.url ?? '';
    const kind = url.endsWith('/responses') ? 'openai' : url.endsWith('/messages') ? 'anthropic' : undefined;
    if (req.method !== 'POST' || !kind) {
      res.writeHead(404).end();
      return;
    }
    const body = await readBody(req);
    requests.push(body);
    const step = script[requests.length - 1];
    if (!step) {
      res
        .writeHead(500, { 'content-type': 'application/json' })
        .end('{"error":{"message":"script exhausted"}}');
      return;
    }
    const made = step(body);
    const answer =
      kind === 'openai'
        ? responseOf(requests.length, body.model, made)
        : messageOf(requests.length, body.model, made);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    openaiBaseUrl: `http://127.0.0.1:${port}/v1`,
    anthropicBaseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
