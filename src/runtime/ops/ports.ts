// A session's own servers: which TCP ports its processes listen on, and a connection to one of them
// carried out of the sandbox through the ingress socket (src/preview/ingress.ts says how), for previews.

export interface ListeningPort {
  readonly port: number;
  /** The address bound, as /proc shows it: 0.0.0.0, 127.0.0.1, ::, ::1, … */
  readonly address: string;
  readonly family: 4 | 6;
  /** The processes holding the socket (pid as the sandbox sees it, its command line), where visible. */
  readonly processes: readonly { pid: number; command: string }[];
}

export interface PortOps {
  /** Sockets in LISTEN state in the runtime's network namespace (/proc/net/tcp and tcp6). */
  listPorts: { args: Record<string, never>; result: { ports: ListeningPort[] } };
  /**
   * Connects to 127.0.0.1:port (or [::1]:port) inside, then dials the ingress socket `socket` (its path
   * in the ingress directory: the replica's that asks) and writes `ticket`
   * and a newline on it; from then on the two sockets are joined. Answers once both are connected.
   * With `fdSocket` (the replica's socket receiver, src/preview/fd-receiver.ts) it sends the connected
   * socket itself there with the ticket instead, and joins nothing (`handedOver`); it relays when it
   * cannot (no python3 inside).
   */
  connectPort: {
    args: { port: number; ticket: string; socket: string; fdSocket?: string };
    result: { address: string; handedOver?: boolean };
  };
}
