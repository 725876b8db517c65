// A minimal tool-calling agent with the official `openai` SDK: an OpenAI-compatible chat model working in
// a toolgate workspace. Tools come from GET /v1/tools?format=openai; each assistant message with
// tool_calls goes as is to the batch endpoint, whose answer is the role "tool" messages to append.
//
// Environment: OPENAI_BASE_URL, OPENAI_API_KEY, MODEL (default gpt-4o-mini), TOOLGATE_URL (default
// http://127.0.0.1:8080), TOOLGATE_TOKEN + TOOLGATE_SESSION (or TOOLGATE_API_KEY to create a session,
// profile TOOLGATE_PROFILE), MAX_TURNS (default 20).
// Usage: npx tsx examples/typescript/agent.ts "Add a README that explains the project"
import OpenAI from 'openai';
import type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`Set ${name}`);
  return value;
};

const toolgateUrl = env('TOOLGATE_URL', 'http://127.0.0.1:8080').replace(/\/$/, '');

async function toolgate<T>(method: string, path: string, token: string, body?: unknown): Promise<T> {
  const res = await fetch(`${toolgateUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path} failed with ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

async function session(): Promise<{ id: string; token: string }> {
  const { TOOLGATE_TOKEN: token, TOOLGATE_SESSION: id, TOOLGATE_API_KEY: adminKey } = process.env;
  if (token && id) return { id, token };
  if (!adminKey) throw new Error('Set TOOLGATE_TOKEN and TOOLGATE_SESSION, or TOOLGATE_API_KEY');
  const profile = env('TOOLGATE_PROFILE', 'read-write');
  const created = await toolgate<{ id: string; token: string }>('POST', '/v1/sessions', adminKey, {
    profile,
  });
  console.error(`[toolgate] created session ${created.id} (${profile})`);
  return created;
}

async function main(): Promise<number> {
  const task = process.argv.slice(2).join(' ') || process.env.TASK || 'List the files in the workspace.';
  const model = env('MODEL', 'gpt-4o-mini');
  const maxTurns = Number(env('MAX_TURNS', '20'));
  const openai = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: env('OPENAI_API_KEY', '') });
  const { id, token } = await session();
  const { tools } = await toolgate<{ tools: ChatCompletionTool[] }>('GET', '/v1/tools?format=openai', token);
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a coding agent. Use the tools to work in the workspace.' },
    { role: 'user', content: task },
  ];

  for (let turn = 0; turn < maxTurns; turn++) {
    const completion = await openai.chat.completions.create({ model, messages, tools });
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) {
      console.log(message.content ?? '');
      return 0;
    }
    for (const call of message.tool_calls) {
      if (call.type === 'function')
        console.error(`[tool] ${call.function.name} ${call.function.arguments.slice(0, 200)}`);
    }
    // The batch endpoint takes the assistant message as is and answers with the tool messages.
    const answer = await toolgate<{ messages: ChatCompletionToolMessageParam[] }>(
      'POST',
      `/v1/sessions/${id}/calls`,
      token,
      message,
    );
    messages.push(...answer.messages);
  }
  console.error(`Gave up after ${maxTurns} turns`);
  return 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
