// Per-session activity events (tool_call_start, tool_output_chunk, tool_call_end, error, and
// network_connection: one per egress connection of the session, when it ends or is refused) with a bounded
// replay buffer (by count and by bytes: output chunks can be large), so an SSE client can resume with
// Last-Event-ID. Only sessions someone has subscribed to (or asked to watch) are buffered.
export type ActivityEventType =
  'tool_call_start' | 'tool_output_chunk' | 'tool_call_end' | 'error' | 'network_connection';

export interface ActivityEvent {
  id: number;
  type: ActivityEventType;
  sessionId: string;
  data: Record<string, unknown>;
}

type Listener = (event: ActivityEvent) => void;

interface SessionChannel {
  buffer: ActivityEvent[];
  /** Approximate size of the buffered events' data (JSON length). */
  bufferBytes: number;
  sizes: number[];
  listeners: Set<Listener>;
}

export class EventHub {
  private nextId = 1;
  private readonly channels = new Map<string, SessionChannel>();

  constructor(
    private readonly bufferSize = 1000,
    private readonly bufferMaxBytes = 1024 * 1024,
  ) {}

  private channel(sessionId: string): SessionChannel {
    let channel = this.channels.get(sessionId);
    if (!channel)
      this.channels.set(
        sessionId,
        (channel = { buffer: [], bufferBytes: 0, sizes: [], listeners: new Set() }),
      );
    return channel;
  }

  /** Whether a session's events are kept (someone subscribed or asked to watch): else publish drops them. */
  watching(sessionId: string): boolean {
    return this.channels.has(sessionId);
  }

  publish(sessionId: string, type: ActivityEventType, data: Record<string, unknown>): void {
    const channel = this.channels.get(sessionId);
    // Nobody has ever subscribed: skip the buffer work on the hot path.
    if (!channel) return;
    const event: ActivityEvent = { id: this.nextId++, type, sessionId, data };
    const size = JSON.stringify(data).length;
    channel.buffer.push(event);
    channel.sizes.push(size);
    channel.bufferBytes += size;
    while (
      channel.buffer.length > 1 &&
      (channel.buffer.length > this.bufferSize || channel.bufferBytes > this.bufferMaxBytes)
    ) {
      channel.buffer.shift();
      channel.bufferBytes -= channel.sizes.shift() ?? 0;
    }
    for (const listener of channel.listeners) listener(event);
  }

  /** Subscribes; events after `lastEventId` still in the buffer are delivered first. */
  subscribe(sessionId: string, listener: Listener, lastEventId?: number): () => void {
    const channel = this.channel(sessionId);
    if (lastEventId !== undefined) {
      for (const event of channel.buffer) if (event.id > lastEventId) listener(event);
    }
    channel.listeners.add(listener);
    return () => channel.listeners.delete(listener);
  }

  /** Id of the oldest event still buffered for the session (undefined when none). */
  oldestId(sessionId: string): number | undefined {
    return this.channels.get(sessionId)?.buffer[0]?.id;
  }

  /** Starts buffering a session's events even before a client connects. */
  watch(sessionId: string): void {
    this.channel(sessionId);
  }

  forget(sessionId: string): void {
    this.channels.delete(sessionId);
  }
}
