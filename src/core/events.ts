// Per-session activity events (tool_call_start, tool_output_chunk, tool_call_end, error) with a bounded
// replay buffer, so an SSE client can resume with Last-Event-ID.
export type ActivityEventType = 'tool_call_start' | 'tool_output_chunk' | 'tool_call_end' | 'error';

export interface ActivityEvent {
  id: number;
  type: ActivityEventType;
  sessionId: string;
  data: Record<string, unknown>;
}

type Listener = (event: ActivityEvent) => void;

interface SessionChannel {
  buffer: ActivityEvent[];
  listeners: Set<Listener>;
}

export class EventHub {
  private nextId = 1;
  private readonly channels = new Map<string, SessionChannel>();

  constructor(private readonly bufferSize = 1000) {}

  private channel(sessionId: string): SessionChannel {
    let channel = this.channels.get(sessionId);
    if (!channel) this.channels.set(sessionId, (channel = { buffer: [], listeners: new Set() }));
    return channel;
  }

  publish(sessionId: string, type: ActivityEventType, data: Record<string, unknown>): void {
    const channel = this.channels.get(sessionId);
    // Nobody has ever subscribed: skip the buffer work on the hot path.
    if (!channel) return;
    const event: ActivityEvent = { id: this.nextId++, type, sessionId, data };
    channel.buffer.push(event);
    if (channel.buffer.length > this.bufferSize) channel.buffer.shift();
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

  /** Starts buffering a session's events even before a client connects. */
  watch(sessionId: string): void {
    this.channel(sessionId);
  }

  forget(sessionId: string): void {
    this.channels.delete(sessionId);
  }
}
