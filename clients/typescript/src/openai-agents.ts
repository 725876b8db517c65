// OpenAI Agents SDK adapter (`@toolgate/client/openai-agents`, peer dependency `@openai/agents`): a
// session's tools as FunctionTools for an Agent. Non-strict, with toolgate's JSON Schemas as they are;
// each call runs through toolgate and answers with the tool's own text ("Error <CODE>: …" on failure).
import { tool, type FunctionTool } from '@openai/agents';
import { callText, declared } from './adapter-text.js';
import type { Session } from './client.js';

type NonStrictParameters = Extract<Parameters<typeof tool>[0], { strict: false }>['parameters'];

export async function toolgateAgentTools(
  session: Session,
  options: { category?: string } = {},
): Promise<FunctionTool<unknown, NonStrictParameters, string>[]> {
  return (await declared(session, options.category)).map(({ name, description, parameters }) =>
    tool({
      name,
      description,
      // toolgate's own schema (closed objects); the SDK sends it as it is when strict is off.
      parameters: parameters as NonStrictParameters,
      strict: false,
      execute: async (input: unknown) => (await callText(session, name, input)).text,
    }),
  );
}
