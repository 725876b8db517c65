// A small Server-Sent Events reader over fetch, for tests of the activity stream and streamed calls.
export interface SseEvent {
  id?: string;
  event: string;
  data: any;
  /** ms since the reader started. */
  at: number;
}

export interface SseReader {
  events: SseEvent[];
  comments: string[];
  /** Resolves with the first event (already received or future) matching `match`. */
  waitFor(match: (e: SseEvent) => boolean, ms?: number): Promise<SseEvent>;
  done: Promise<void>;
  close(): void;
}

export function readSse(response: Response): SseReader {
  const started = Date.now();
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const waiters: Array<{ match: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }> = [];
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const handle = (block: string) => {
    const event: SseEvent = { event: 'message', data: undefined, at: Date.now() - started };
    let isEvent = false;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) comments.push(line.slice(1).trim());
      else if (line.startsWith('id: ')) event.id = line.slice(4);
      else if (line.startsWith('event: ')) event.event = line.slice(7);
      else if (line.startsWith('data: ')) {
        event.data = JSON.parse(line.slice(6));
        isEvent = true;
      }
    }
    if (!isEvent) return;
    events.push(event);
    for (const waiter of [...waiters]) {
      if (waiter.match(event)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    }
  };
  const done = (async () => {
    try {
      for (;;) {
        const { value, done: end } = await reader.read();
        if (end) break;
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          handle(buffer.slice(0, cut));
          buffer = buffer.slice(cut + 2);
        }
      }
    } catch {
      // Cancelled by close().
    }
  })();
  return {
    events,
    comments,
    done,
    waitFor(match, ms = 5000) {
      const found = events.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching event within ${ms} ms`)), ms);
        waiters.push({
          match,
          resolve: (e) => {
            clearTimeout(timer);
            resolve(e);
          },
        });
      });
    },
    close: () => void reader.cancel().catch(() => undefined),
  };
}
