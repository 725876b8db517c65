// Server-Sent Events of a streamed tool call, read from a fetch body: one event per blank-line-ended
// block, `data` lines joined and parsed as JSON.
import type { StreamEvent } from './types.js';

export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = 'message';
  let data: string[] = [];
  let id: string | undefined;
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline).replace(/\r$/, '');
        buffer = buffer.slice(newline + 1);
        if (line === '') {
          if (data.length > 0) {
            const raw = data.join('\n');
            let parsed: unknown = raw;
            try {
              parsed = JSON.parse(raw);
            } catch {
              // not JSON: the text as it is
            }
            yield { event, data: parsed, ...(id !== undefined ? { id } : {}) };
          }
          event = 'message';
          data = [];
          id = undefined;
        } else if (!line.startsWith(':')) {
          const colon = line.indexOf(':');
          const name = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (name === 'event') event = value;
          else if (name === 'data') data.push(value);
          else if (name === 'id') id = value;
        }
      }
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}
