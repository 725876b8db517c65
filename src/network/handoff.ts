// Hands a decided, connected, busy egress connection from the proxy's JavaScript copy to the kernel's
// splice(2) (src/network/splice-forwarder.ts): the forwarder gets duplicates of both sockets and carries the
// bytes; the proxy keeps the connection's accounting (the forwarder reports every chunk, counted against
// the quota as before, and is killed when the quota or the session runs out) and records it when the
// forwarder exits. Small connections never get here: a forwarder costs a process start (tens of ms of
// CPU), worth it only once a connection has shown it is a transfer (HANDOFF_BYTES).
import type net from 'node:net';
import { handOff as handOffTo, spliceAvailable, type Handoff } from './splice-forwarder.js';
import type { Connection } from './connections.js';

export type { Handoff };

/** Bytes a connection moves through the JavaScript copy before it is handed to splice, by default. */
export const HANDOFF_BYTES = 1024 * 1024;

/** When a connection is handed off: after `after` bytes, never if 0 or if this machine cannot splice. */
export function handoffAfter(after: number): number {
  return after > 0 && spliceAvailable() ? after : Infinity;
}

/** Hands a proxied connection to a forwarder (see src/network/splice-forwarder.ts), its accounting kept. */
export function handOff(
  client: net.Socket,
  upstream: net.Socket,
  mode: 'both' | 'down',
  allowance: () => number | undefined,
  connection: Connection,
  ended: (failure?: string) => void,
): Handoff {
  return handOffTo(client, upstream, mode, {
    count: (direction, bytes) => connection.count(direction, bytes),
    take: (direction, bytes) => connection.take(direction, bytes),
    allowance,
    ended,
  });
}
