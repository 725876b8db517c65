// What a long-lived part of the app declares about its life: what it forgets when a session is deleted,
// what it drops when the periodic sweep runs, and what it releases at shutdown. Each subsystem's wiring
// (src/<subsystem>/wiring.ts) returns its parts' lifecycles; services.ts keeps one ordered list of them
// and iterates it for session deletion, sweeping and close, in list order.
export interface Lifecycle {
  /** Who declares it (in logs and in the sweep's counts). */
  readonly name: string;
  /** Forgets everything it holds for a deleted session. */
  forgetSession?(sessionId: string): unknown;
  /** Drops what expired by `now`; may answer how many rows or entries it dropped. */
  sweep?(now: number): number | void | Promise<number | void>;
  /** Releases what it holds; the app is closing. */
  close?(): unknown;
}

/** Runs `forgetSession` of every part, one after the other, in list order. */
export async function forgetSession(parts: readonly Lifecycle[], sessionId: string): Promise<void> {
  for (const part of parts) await part.forgetSession?.(sessionId);
}

/** Runs `sweep` of every part in list order; the counts of those that report one, by name. */
export async function sweepAll(parts: readonly Lifecycle[], now: number): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const part of parts) {
    if (!part.sweep) continue;
    const count = await part.sweep(now);
    if (typeof count === 'number') counts.set(part.name, count);
  }
  return counts;
}

/** Runs `close` of every part in list order; a failure stops the rest, as a hand-written sequence did. */
export async function closeAll(parts: readonly Lifecycle[]): Promise<void> {
  for (const part of parts) await part.close?.();
}
