// Names → addresses for the egress proxy: the operator's hosts file first (tests map their own names
// there), then the system resolver. Every address a name has is returned, so the caller can refuse a
// name any of whose addresses is blocked.
import { promises as dns } from 'node:dns';
import { readFileSync } from 'node:fs';
import { normalizeHost } from '../lib/net-patterns.js';
import { parseAddress, type Address } from './ranges.js';

export class Resolver {
  private readonly hosts = new Map<string, Address[]>();

  constructor(hostsFile: string | undefined) {
    if (hostsFile === undefined) return;
    // Read once at start: the file is configuration, like the config file itself.
    for (const raw of readFileSync(hostsFile, 'utf8').split('\n')) {
      const [addressText, ...names] = raw.replace(/#.*/, '').trim().split(/\s+/);
      const address = addressText ? parseAddress(addressText) : undefined;
      if (!address) continue;
      for (const name of names) {
        const key = normalizeHost(name);
        this.hosts.set(key, [...(this.hosts.get(key) ?? []), address]);
      }
    }
  }

  /** Every address of `host` (a literal address is its own); empty when the name does not resolve. */
  async resolve(host: string): Promise<Address[]> {
    const name = normalizeHost(host);
    const literal = parseAddress(name);
    if (literal) return [literal];
    const mapped = this.hosts.get(name);
    if (mapped) return mapped;
    try {
      const found = await dns.lookup(name, { all: true, verbatim: true });
      return found.flatMap(({ address }) => parseAddress(address) ?? []);
    } catch {
      return [];
    }
  }
}
