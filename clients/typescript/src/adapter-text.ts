// What the framework adapters share: a session's tools as `{name, description, parameters}` (OpenAI's
// declarations, JSON Schema as toolgate declares it), and one call through the batch endpoint, answered
// with the tool's own text for a model (numbered lines for read_file, "Error <CODE>: …" on failure).
import type { Session } from './client.js';

export interface Declared {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export async function declared(session: Session, category?: string): Promise<Declared[]> {
  const tools = await session.tools('openai', { category });
  return tools.map((tool) => (tool as { function: Declared }).function);
}

export interface CallText {
  success: boolean;
  text: string;
}

export async function callText(session: Session, name: string, input: unknown): Promise<CallText> {
  const answer = await session.batch<{ results: CallText[] }>([{ name, arguments: (input ?? {}) as object }]);
  return answer.results[0];
}
