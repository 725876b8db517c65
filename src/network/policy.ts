// A session's egress policy: what its profile gives, narrowed (never widened) by what the session was
// created with, and the name-level half of every decision — is this host (or literal address) on the
// list at all. The address-level half (blocked ranges, after resolution) is ranges.ts.
import type { NetworkPolicy, Permission, ProfileConfig } from '../config.js';
import { normalizeHost, parseAllowEntry, type AllowEntry } from '../lib/net-patterns.js';
import { inRange, parseAddress, parseRange, type Address } from './ranges.js';

export type NetworkMode = NetworkPolicy['mode'];
const RANK: Record<NetworkMode, number> = { off: 0, allowlist: 1, open: 2 };

/** The policy with its entries parsed once. */
export interface EffectivePolicy {
  readonly mode: NetworkMode;
  readonly allow: readonly string[];
  readonly entries: readonly AllowEntry[];
}

const parsedEntries = (allow: readonly string[]): AllowEntry[] =>
  allow.map((text) => {
    const entry = parseAllowEntry(text);
    if (typeof entry === 'string') throw new Error(entry);
    return entry;
  });

export function effectivePolicy(policy: NetworkPolicy): EffectivePolicy {
  const allow = policy.mode === 'allowlist' ? (policy.allow ?? []) : [];
  return { mode: policy.mode, allow, entries: parsedEntries(allow) };
}

/** What a profile gives: off without the `network` permission; `open` when it has it and says no more. */
export function profileNetwork(profile: Pick<ProfileConfig, 'network'>, permissions: readonly Permission[]) {
  if (!permissions.includes('network')) return { mode: 'off' } as const;
  return profile.network ?? ({ mode: 'open' } as const);
}

/** Whether allow-list entry `inner` admits nothing `outer` does not. */
function covers(outer: AllowEntry, inner: AllowEntry): boolean {
  if (outer.kind === 'range' && inner.kind === 'range') {
    const [base, bits] = parseRange(inner.cidr);
    const [, outerBits] = parseRange(outer.cidr);
    return bits >= outerBits && inRange(base, parseRange(outer.cidr));
  }
  if (outer.kind === 'host') return inner.kind === 'host' && inner.host === outer.host;
  if (outer.kind === 'wildcard') {
    if (inner.kind === 'host') return inner.host.endsWith(`.${outer.suffix}`);
    if (inner.kind === 'wildcard')
      return inner.suffix === outer.suffix || inner.suffix.endsWith(`.${outer.suffix}`);
  }
  return false;
}

/**
 * The session's policy: the profile's, or the request's when it is narrower. A sentence says what
 * widens (a stricter mode is always fine; in allowlist mode every entry must be covered by the profile's).
 */
export function narrowPolicy(
  profile: NetworkPolicy,
  requested: NetworkPolicy | undefined,
): NetworkPolicy | string {
  if (requested === undefined) return profile.mode === 'allowlist' ? profile : { mode: profile.mode };
  for (const text of requested.allow ?? []) {
    const entry = parseAllowEntry(text);
    if (typeof entry === 'string') return entry;
  }
  if (RANK[requested.mode] > RANK[profile.mode]) {
    return `mode "${requested.mode}" is wider than the profile's "${profile.mode}"`;
  }
  if (requested.mode !== 'allowlist') return { mode: requested.mode };
  const allow = requested.allow ?? profile.allow ?? [];
  if (profile.mode === 'allowlist') {
    const outer = parsedEntries(profile.allow ?? []);
    const wider = allow.find((text) => {
      const entry = parseAllowEntry(text) as AllowEntry;
      return !outer.some((o) => covers(o, entry));
    });
    if (wider !== undefined) return `"${wider}" is not within the profile's allow-list`;
  }
  return { mode: 'allowlist', allow };
}

/** Why a destination is refused at the name level, or undefined when the name may be looked up. */
export function nameRefusal(policy: EffectivePolicy, host: string): string | undefined {
  if (policy.mode === 'off') return 'the network is off for this session';
  if (policy.mode === 'open') return undefined;
  const name = normalizeHost(host);
  const literal = parseAddress(name);
  if (literal) return addressAllowed(policy, literal) ? undefined : "not in the session's allow-list";
  // A name not listed is refused before it is looked up, even when the list holds ranges: a range is
  // for addresses given literally. Resolving every name to see whether it lands in a range would send
  // any name a sandbox makes up to the host's resolver (a DNS side channel out of the sandbox).
  return nameListed(policy, name) ? undefined : "not in the session's allow-list";
}

/** Whether the name itself is listed (then any public address it resolves to will do; else it is not looked up). */
export function nameListed(policy: EffectivePolicy, host: string): boolean {
  if (policy.mode === 'open') return true;
  const name = normalizeHost(host);
  return policy.entries.some(
    (entry) =>
      (entry.kind === 'host' && entry.host === name) ||
      (entry.kind === 'wildcard' && name.endsWith(`.${entry.suffix}`)),
  );
}

/** Whether an address is within one of the allow-list's ranges. */
export function addressAllowed(policy: EffectivePolicy, address: Address): boolean {
  return policy.entries.some((entry) => entry.kind === 'range' && inRange(address, parseRange(entry.cidr)));
}
