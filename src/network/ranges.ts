// Which addresses a session may never reach: the host's loopback and its own addresses, private,
// shared, link-local, multicast and every other range IANA lists as not globally reachable — unless the
// operator opened a range in the config (an internal package mirror). Checked on the address a name
// resolved to, the one the connection then goes to, so a public name that resolves to 127.0.0.1 (DNS
// rebinding) is refused like the literal address.
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

/** Blocked ranges, each with the reason a refusal names. IPv4-mapped IPv6 is checked as the IPv4 it maps. */
const BLOCKED: ReadonlyArray<readonly [string, string]> = [
  ['0.0.0.0/8', 'this-network range'],
  ['10.0.0.0/8', 'private range'],
  ['100.64.0.0/10', 'shared (carrier-grade NAT) range'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local range (cloud metadata)'],
  ['172.16.0.0/12', 'private range'],
  ['192.0.0.0/24', 'IETF protocol range'],
  ['192.0.2.0/24', 'documentation range'],
  ['192.88.99.0/24', '6to4 relay range'],
  ['192.168.0.0/16', 'private range'],
  ['198.18.0.0/15', 'benchmarking range'],
  ['198.51.100.0/24', 'documentation range'],
  ['203.0.113.0/24', 'documentation range'],
  ['224.0.0.0/4', 'multicast range'],
  ['240.0.0.0/4', 'reserved range'],
  ['::/128', 'unspecified address'],
  ['::1/128', 'loopback'],
  ['64:ff9b::/96', 'NAT64 range'],
  ['64:ff9b:1::/48', 'NAT64 range'],
  ['100::/64', 'discard range'],
  ['2001::/23', 'IETF protocol range (Teredo)'],
  ['2001:db8::/32', 'documentation range'],
  ['2002::/16', '6to4 range'],
  ['fc00::/7', 'private (unique local) range'],
  ['fe80::/10', 'link-local range'],
  ['ff00::/8', 'multicast range'],
];

export const parseRange = (cidr: string): Range => ipaddr.parseCIDR(cidr);
export type { Address, Range };

/** The address in its canonical form, an IPv4-mapped IPv6 address as its IPv4; undefined if not an address. */
export function parseAddress(text: string): Address | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (!ipaddr.isValid(bare)) return undefined;
  // ipaddr accepts "127.1" and octal forms as IPv4 only through parse(); a strict four-part check keeps
  // "what the proxy checked" equal to "what the kernel would connect to".
  if (!bare.includes(':') && !ipaddr.IPv4.isValidFourPartDecimal(bare)) return undefined;
  return ipaddr.process(bare);
}

export const inRange = (address: Address, [base, bits]: Range): boolean =>
  address.kind() === base.kind() && address.match([base, bits] as never);

export interface AddressVerdict {
  readonly blocked: boolean;
  /** Why it is blocked, as a refusal names it ("private range 10.0.0.0/8"). */
  readonly reason?: string;
}

/** The blocked ranges plus the host's own addresses, minus the ranges the operator opened. */
export class AddressRules {
  private readonly blocked: ReadonlyArray<{ range: Range; reason: string }>;
  private readonly opened: readonly Range[];
  private hostAddresses: ReadonlySet<string>;
  private hostAddressesAt = 0;

  constructor(openRanges: readonly string[]) {
    this.blocked = BLOCKED.map(([cidr, why]) => ({ range: parseRange(cidr), reason: `${why} ${cidr}` }));
    this.opened = openRanges.map(parseRange);
    this.hostAddresses = new Set();
  }

  /** The host's own addresses, re-read at most once a second (an interface may come up later). */
  private ownAddresses(): ReadonlySet<string> {
    const now = Date.now();
    if (now - this.hostAddressesAt > 1000) {
      const found = new Set<string>();
      for (const list of Object.values(networkInterfaces())) {
        for (const entry of list ?? []) {
          const address = parseAddress(entry.address.split('%')[0]!);
          if (address) found.add(address.toNormalizedString());
        }
      }
      this.hostAddresses = found;
      this.hostAddressesAt = now;
    }
    return this.hostAddresses;
  }

  /**
   * Whether a session may connect to `address`. An operator-opened range wins over every rule (the
   * operator wrote that range down), so opening 127.0.0.0/8 does expose the host's loopback: say so in
   * the docs, and open the narrowest range that holds the mirror.
   */
  check(address: Address): AddressVerdict {
    if (this.opened.some((range) => inRange(address, range))) return { blocked: false };
    // The host's loopback is reported as such, by the range below.
    if (address.range() !== 'loopback' && this.ownAddresses().has(address.toNormalizedString())) {
      // The rule, not the address: a refusal must not tell a session what a name resolved to.
      return { blocked: true, reason: "one of the host's own addresses" };
    }
    const rule = this.blocked.find(({ range }) => inRange(address, range));
    return rule ? { blocked: true, reason: rule.reason } : { blocked: false };
  }
}
