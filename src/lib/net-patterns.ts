// The grammar of a network allow-list entry — a host name, a "*.example.com" wildcard, an IP address or
// a CIDR range — shared by the config file's check and the egress policy that matches with them.
import ipaddr from 'ipaddr.js';

/** True when `text` is an IPv4 or IPv6 range ("10.1.2.0/24", "2001:db8::/32"). */
export const isCidr = (text: string): boolean => ipaddr.isValidCIDR(text);

/** A DNS name of letters, digits and hyphens in dot-separated labels (no trailing dot). */
const HOST_NAME =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** A host name as compared: lower case, without the trailing dot of a fully qualified name. */
export const normalizeHost = (host: string): string => host.toLowerCase().replace(/\.$/, '');

export const isHostName = (text: string): boolean => HOST_NAME.test(text);

export type AllowEntry =
  { kind: 'host'; host: string } | { kind: 'wildcard'; suffix: string } | { kind: 'range'; cidr: string };

/** An allow-list entry parsed, or a sentence saying what is wrong with it. */
export function parseAllowEntry(text: string): AllowEntry | string {
  const entry = normalizeHost(text.trim());
  if (isCidr(entry)) return { kind: 'range', cidr: entry };
  if (ipaddr.isValid(entry)) {
    const address = ipaddr.process(entry);
    return { kind: 'range', cidr: `${address.toString()}/${address.kind() === 'ipv4' ? 32 : 128}` };
  }
  if (entry.startsWith('*.')) {
    const suffix = entry.slice(2);
    return isHostName(suffix) && suffix.includes('.')
      ? { kind: 'wildcard', suffix }
      : `"${text}": a wildcard is "*." followed by a domain with a dot, e.g. "*.example.com"`;
  }
  if (isHostName(entry)) return { kind: 'host', host: entry };
  return `"${text}" is neither a host name, a "*.domain" wildcard, an IP address nor a CIDR range`;
}
