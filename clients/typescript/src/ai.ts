// Vercel AI SDK adapter (`@toolgate/client/ai`, peer dependency `ai`): a session's tools as AI SDK tools
// for generateText/streamText. Each runs through toolgate and answers with the tool's own text; a
// failed call answers its error text ("Error <CODE>: …"), which the model reads and can act on.
import { jsonSchema, tool, type Tool } from 'ai';
import { callText, declared } from './adapter-text.js';
import type { Session } from './client.js';

export async function toolgateTools(
  session: Session,
  options: { category?: string } = {},
): Promise<Record<string, Tool>> {
  const tools: Record<string, Tool> = {};
  for (const { name, description, parameters } of await declared(session, options.category)) {
    tools[name] = tool({
      description,
      inputSchema: jsonSchema(parameters),
      execute: async (input: unknown) => (await callText(session, name, input)).text,
    });
  }
  return tools;
}
