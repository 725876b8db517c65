// A scripted OpenAI-compatible chat-completions server on loopback: each request gets the next reply of
// the script, which may look at the conversation so far. Requests are kept for the test to inspect.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  authorization: string | undefined;
  body: {
    model: string;
    messages: { role: string; content?: string | null; tool_call_id?: string; tool_calls?: unknown[] }[];
    tools?: { type: string; function: { name: string } }[];
  };
}

export type ScriptedReply =
  { toolCalls: { id: string; name: string; arguments: string }[] } | { content: string };

export interface FakeChat {
  baseUrl: string;
  requests: ChatRequest[];
  close(): Promise<void>;
}

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

export async function startFakeChat(script: ((request: ChatRequest) => ScriptedReply)[]): Promise<FakeChat> {
  const requests: ChatRequest[] = [];
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404).end();
      return;
    }
    const request: ChatRequest = {
      authorization: req.headers.authorization,
      body: JSON.parse(await readBody(req)),
    };
    requests.push(request);
    const step = script[requests.length - 1];
    if (!step) {
      res
        .writeHead(500, { 'content-type': 'application/json' })
        .end('{"error":{"message":"script exhausted"}}');
      return;
    }
    const reply = step(request);
    const message =
      'toolCalls' in reply
        ? {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: reply.toolCalls.map((call) => ({
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: call.arguments },
            })),
          }
        : { role: 'assistant', content: reply.content, refusal: null };
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: request.body.model,
        choices: [
          { index: 0, message, finish_reason: 'toolCalls' in reply ? 'tool_calls' : 'stop', logprobs: null },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
